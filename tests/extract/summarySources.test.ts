/**
 * Where a static summary comes from, per language: the file's own header doc first (after a licence, shebang,
 * encoding line or generated banner), then the doc of its main definition, then a sentence composed from its
 * definitions; never a tool directive, an inner comment, commented-out code or template boilerplate.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RepoFileSet } from '../../src/extract/imports.js';
import { ParserPool } from '../../src/extract/parser.js';
import { WordCache } from '../../src/extract/wordCache.js';
import { extractStaticFacts } from '../../src/extract/staticProfile.js';

const parsers = new ParserPool();
const words = new WordCache();
afterAll(() => parsers.dispose());

const summaryOf = async (file: string, lines: string[]): Promise<[string, string | undefined]> => {
  const facts = await extractStaticFacts(file, `${lines.join('\n')}\n`, { parsers, repoFiles: new RepoFileSet([file]), words });
  return [facts.summary, facts.summary_source];
};

describe('a Python summary', () => {
  it('is the module docstring, after a shebang, an encoding line and a licence comment', async () => {
    expect(await summaryOf('pkg/ctx.py', ['#!/usr/bin/env python', '# -*- coding: utf-8 -*-', '# Copyright 2020 Acme. Licensed under BSD.', '"""Request and application contexts.', '', 'More detail."""', 'import typing as t', '', 'def push():', '    pass'])).toEqual([
      'Request and application contexts.',
      'doc',
    ]);
  });

  it("is never a pragma or a type: ignore from inside the code, nor a helper's doc, but the doc of the class named like the file", async () => {
    const [summary, source] = await summaryOf('pkg/blueprints.py', [
      'import typing as t',
      '',
      'if t.TYPE_CHECKING:  # pragma: no cover',
      '    from .wrappers import Response',
      '',
      'x = 1  # type: ignore',
      '',
      'class _Sentinel:',
      '    """A singleton sentinel value for parameter defaults."""',
      '',
      'class Blueprint:',
      '    """Represents a blueprint, a collection of routes and other app-related functions."""',
    ]);
    expect(summary).toBe('Represents a blueprint, a collection of routes and other app-related functions.');
    expect(source).toBe('comment');
  });

  it('is composed when neither the module nor its main class has a doc', async () => {
    const [summary, source] = await summaryOf('pkg/helpers.py', ['import os', '', '# we need this for Windows', 'def a():', '    pass', '', 'def b():', '    # pylint: disable=unused', '    pass']);
    expect(source).toBe('composed');
    expect(summary).toBe('Defines functions a and b; uses os.');
  });

  it('takes a short docstring as the title of a composed sentence, but never an encoding line', async () => {
    expect((await summaryOf('pkg/util.py', ['"""Utilities."""', 'def a():', '    pass']))[0]).toBe('Utilities: Defines function a.');
    expect((await summaryOf('pkg/enc.py', ['# coding: utf-8', 'def a():', '    pass']))[0]).toBe('Defines function a.');
  });
});

describe('a JavaScript summary', () => {
  it("is a JSDoc @file header, after a licence banner and 'use strict'", async () => {
    expect(await summaryOf('lib/router.js', ['/*!', ' * router', ' * Copyright(c) 2014 Someone', ' * MIT Licensed', ' */', '', "'use strict';", '', '/**', ' * @file Routes requests to handlers by method and path.', ' */', '', 'module.exports = Router;'])).toEqual([
      'Routes requests to handlers by method and path.',
      'doc',
    ]);
  });

  it('skips "Module dependencies. @private" boilerplate and inner comments, and takes the main export\'s doc', async () => {
    const [summary, source] = await summaryOf('lib/request.js', [
      "'use strict';",
      '',
      '/**',
      ' * Module dependencies.',
      ' * @private',
      ' */',
      '',
      "var accepts = require('accepts');",
      '',
      '/**',
      ' * Request prototype: what an incoming message knows about itself.',
      ' * @public',
      ' */',
      'function Request() {',
      '  // Support trusting everything',
      '  return accepts;',
      '}',
      'module.exports = Request;',
    ]);
    expect(summary).toBe('Request prototype: what an incoming message knows about itself.');
    expect(source).toBe('comment');
  });

  it('is never an eslint-disable, istanbul or prettier-ignore directive, nor commented-out code', async () => {
    const [summary, source] = await summaryOf('lib/util.js', ['/* eslint-disable no-console */', '/* istanbul ignore next */', '// prettier-ignore', '// const old = require("./old");', 'function helper() {}', 'function other() {}']);
    expect(source).toBe('composed');
    expect(summary).toBe('Defines functions helper and other.');
  });

  it('opens a composed sentence with a header too short to be the summary, as a locale file names its language', async () => {
    const [summary, source] = await summaryOf('src/locale/bg.js', ['// Bulgarian [bg]', "import dayjs from 'dayjs'", '', "const locale = { name: 'bg' }", '', 'export default locale']);
    expect(source).toBe('composed');
    expect(summary).toBe('Bulgarian [bg]: Defines and exports constant locale; uses dayjs.');
  });

  it('takes no title from a setting line, a shebang or a directive', async () => {
    for (const header of [['#!/usr/bin/env node'], ['// vim: set ts=2:'], ['// @ts-check'], ['/* eslint-disable */'], ['// Copyright Acme']]) {
      const [summary] = await summaryOf('lib/tool.js', [...header, 'export function run() {}']);
      expect(summary).toBe('Defines and exports function run.');
    }
  });
});

describe('a TypeScript summary', () => {
  it('is never a @ts- directive, and a @module tag gives the doc after the module name', async () => {
    expect(await summaryOf('src/cache.ts', ['// @ts-nocheck', '/**', ' * @module cache', ' * A TTL cache that evicts the least recently used entry.', ' */', 'export class Cache {}'])).toEqual([
      'A TTL cache that evicts the least recently used entry.',
      'doc',
    ]);
  });
});

describe('a Go summary', () => {
  it('is the package comment above `package`, after the licence and build constraints', async () => {
    expect(
      await summaryOf('flags.go', ['// Copyright 2013 The Authors', '//', '// Licensed under the Apache License, Version 2.0', '', '//go:build linux', '', '// Package cli builds command-line applications from flags and commands.', 'package cli', '', '// nolint:gocyclo', 'func parse() {}']),
    ).toEqual(['Package cli builds command-line applications from flags and commands.', 'doc']);
  });

  it('is not the doc of the first declaration after `package`', async () => {
    const [, source] = await summaryOf('suggest.go', ['package cli', '', '// jaroDistance is the measure of similarity between two strings.', 'func jaroDistance() {}', '', 'func other() {}']);
    expect(source).toBe('composed');
  });
});

describe('a Rust summary', () => {
  it("is the crate or module's //! inner doc", async () => {
    expect(await summaryOf('src/walk.rs', ['// Licensed under MIT', '//! Walks a directory tree in parallel,', '//! honouring ignore files.', '', 'use std::fs;', 'pub fn walk() {}'])).toEqual([
      'Walks a directory tree in parallel, honouring ignore files.',
      'doc',
    ]);
  });

  it("is the /// doc of the type named like the file when the module has no doc of its own", async () => {
    expect(await summaryOf('src/bytes_mut.rs', ['use core::ops;', '', '/// A unique reference to a contiguous slice of memory.', '#[derive(Debug)]', 'pub struct BytesMut {}', '', '// NOTE: this is a hack', 'fn helper() {}'])).toEqual([
      'A unique reference to a contiguous slice of memory.',
      'comment',
    ]);
  });
});

describe('a Java summary', () => {
  it("is the class Javadoc, past the licence, the package, the imports and the @author tag", async () => {
    expect(
      await summaryOf('src/main/java/org/jsoup/nodes/DataNode.java', ['/* Licensed under the MIT licence */', 'package org.jsoup.nodes;', '', 'import java.util.List;', '', '/**', ' A data node, for contents of style and script tags.', '', ' @author Jonathan Hedley */', 'public class DataNode {', '  // TODO: fix', '}']),
    ).toEqual(['A data node, for contents of style and script tags.', 'comment']);
  });
});
