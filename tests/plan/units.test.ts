/**
 * The planning loop's pure parts and its files: turn answers, project paths, the state file, the inputs folder.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerLines } from '../../src/plan/answers.js';
import { readInputDocuments } from '../../src/plan/context.js';
import { fileStateStore, statePathFor, type PlanState } from '../../src/plan/state.js';
import { parseTurn, projectPath, turnRequestSchema } from '../../src/plan/turn.js';
import { makeTempDir } from '../support/tempRepo.js';

describe('parseTurn', () => {
  const file = { path: 'src/a.ts', purpose: 'does a', draws_on: [] };
  it.each([
    ['a question', { kind: 'question', message: 'Which store?', files: [] }, false, { kind: 'question', message: 'Which store?' }],
    ['a proposal, sorted and deduplicated', { kind: 'proposal', message: 'ok', files: [{ ...file, path: './src/b.ts' }, file, file] }, false,
      { kind: 'proposal', message: 'ok', files: [file, { ...file, path: 'src/b.ts' }] }],
    ['a question where a structure is required', { kind: 'question', message: 'Which?', files: [] }, true, 'a question where a final structure was required'],
    ['an empty question', { kind: 'question', message: '  ', files: [] }, false, 'a question with no text'],
    ['a proposal with no files', { kind: 'proposal', message: 'ok', files: [] }, false, 'a proposal with no files'],
    ['another kind', { kind: 'essay', message: 'long', files: [] }, false, 'neither a question nor a structure: kind "essay"'],
    ['no kind at all', { text: 'hello' }, false, 'neither a question nor a structure: no kind'],
    ['a file without a purpose', { kind: 'proposal', message: 'ok', files: [{ ...file, purpose: ' ' }] }, false, 'files[0].purpose: empty'],
    ['a file of the wrong shape', { kind: 'proposal', message: 'ok', files: ['src/a.ts'] }, false, 'files[0]: expected path, purpose and draws_on'],
  ])('%s', (_name, value, proposalOnly, expected) => {
    expect(parseTurn(value, proposalOnly)).toEqual(expected);
  });

  it('asks for every field, as strict structured output requires', () => {
    const schema = turnRequestSchema() as { required: string[]; additionalProperties: boolean };
    expect(schema.required).toEqual(['kind', 'message', 'files']);
    expect(schema.additionalProperties).toBe(false);
  });
});

describe('projectPath', () => {
  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['src\\win\\a.ts', 'src/win/a.ts'],
    ['src/../lib/a.ts', 'lib/a.ts'],
    ['../a.ts', null],
    ['/etc/passwd', null],
    ['C:/x.ts', null],
    ['src/', null],
    ['', null],
  ])('%j -> %j', (raw, expected) => {
    expect(projectPath(raw)).toBe(expected);
  });
});

describe('answerLines', () => {
  it('keeps one answer per non-blank line', () => {
    expect(answerLines('first\r\n\n  second  \n\napprove\n')).toEqual(['first', 'second', 'approve']);
  });
});

describe('the plan state file', () => {
  const state: PlanState = {
    format: 'coderag-plan-state', version: 1, query: 'q', context: '',
    turns: [{ model: { kind: 'question', message: 'Which?' }, answer: 'this' }],
    started_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
  };

  it('lives beside the output and reads back what was saved', async () => {
    const out = path.join(makeTempDir(), 'target_structure.md');
    expect(statePathFor(out)).toBe(`${out}.plan.json`);
    const store = fileStateStore(statePathFor(out));
    expect(await store.load()).toBeNull();
    await store.save(state);
    expect(await store.load()).toEqual(state);
    await store.remove();
    expect(await store.load()).toBeNull();
  });

  it.each([
    ['not JSON', '{"format": "coderag-plan-st', 'not JSON'],
    ['another format', JSON.stringify({ ...state, format: 'other' }), 'format: Invalid input: expected "coderag-plan-state"'],
    ['a turn of an unknown kind', JSON.stringify({ ...state, turns: [{ model: { kind: 'essay', message: 'x' }, answer: null }] }), 'turns.0.model.kind'],
    ['an unanswered turn before the last', JSON.stringify({ ...state, turns: [{ ...state.turns[0], answer: null }, state.turns[0]] }), 'turns.0: unanswered turn before the last'],
  ])('is an error naming the file when it holds %s', async (_name, text, why) => {
    const file = path.join(makeTempDir(), 'ts.md.plan.json');
    writeFileSync(file, text);
    const error = await fileStateStore(file).load().catch((e: unknown) => e as Error & { hint?: string });
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(`the plan state file ${file} is corrupt (`);
    expect((error as Error).message).toContain(why);
    expect((error as { hint?: string }).hint).toContain('nothing was overwritten');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('readInputDocuments', () => {
  const limits = { maxFileSize: 10_000, maxChars: 100 };

  it('is a usage error for a missing folder or a file', async () => {
    await expect(readInputDocuments('/nonexistent/inputs', limits)).rejects.toMatchObject({ message: 'inputs folder not found: /nonexistent/inputs', exitCode: 2 });
    const file = path.join(makeTempDir(), 'spec.md');
    writeFileSync(file, 'x');
    await expect(readInputDocuments(file, limits)).rejects.toMatchObject({ message: `--inputs is not a folder: ${file}`, exitCode: 2 });
  });

  it('notes an empty folder and plans from the query alone', async () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'image.png'), 'png');
    expect(await readInputDocuments(dir, limits)).toEqual({ text: '', notes: [`no .md or .txt files in ${dir}: planning from the query alone`], secretsRedacted: 0 });
  });

  it('bounds the documents together, cutting and then skipping with notes', async () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'a.md'), 'a'.repeat(60));
    mkdirSync(path.join(dir, 'b'));
    writeFileSync(path.join(dir, 'b', 'b.txt'), 'b'.repeat(60));
    writeFileSync(path.join(dir, 'c.md'), 'c'.repeat(10));
    writeFileSync(path.join(dir, 'empty.md'), '\n\n');
    writeFileSync(path.join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    const context = await readInputDocuments(dir, limits);
    expect(context.text).toContain(`--- a.md ---\n${'a'.repeat(60)}`);
    expect(context.text).toContain(`--- b/b.txt ---\n${'b'.repeat(40)}\n`);
    expect(context.text).not.toContain('ccc');
    expect(context.notes).toEqual([
      'input b/b.txt cut to its first 40 of 60 characters (plan.max_input_chars)',
      'input c.md skipped (plan.max_input_chars of 100 characters already used)',
      'input empty.md skipped (empty)',
      'input latin1.txt skipped (not utf8: not valid UTF-8 text)',
    ]);
  });
});
