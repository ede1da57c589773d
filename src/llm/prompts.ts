/**
 * Prompt templates live in `prompts/*.md`, each with a `version` in its front matter. Rendering fills
 * `{{name}}` placeholders; a missing or unused value is an error, so templates and code cannot drift apart.
 * The versions are part of the cache key: editing a template and bumping its version retires stale profiles.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../shared/errors.js';

export const PROMPTS_DIR = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../prompts');

export interface PromptTemplate {
  name: string;
  version: string;
  body: string;
  placeholders: ReadonlySet<string>;
}

export function loadPrompt(name: string, dir: string = PROMPTS_DIR): PromptTemplate {
  const file = path.join(dir, `${name}.md`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new ConfigError(`prompt template missing: ${file}`, { cause });
  }
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  const version = match?.[1] ? /^version:\s*(\S+)/m.exec(match[1])?.[1] : undefined;
  if (!match || !version) throw new ConfigError(`${file}: expected front matter with a version`);
  const body = (match[2] ?? '').trim();
  return { name, version, body, placeholders: new Set([...body.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1] as string)) };
}

export function renderPrompt(template: PromptTemplate, values: Record<string, string>): string {
  for (const name of template.placeholders) {
    if (!(name in values)) throw new Error(`prompt ${template.name}: no value for {{${name}}}`);
  }
  for (const name of Object.keys(values)) {
    if (!template.placeholders.has(name)) throw new Error(`prompt ${template.name}: {{${name}}} is not in the template`);
  }
  return template.body.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? '').replace(/\n{3,}/g, '\n\n');
}

export interface PromptSet {
  /** The shared prefix of every profile request: instructions and answer format. */
  profile: PromptTemplate;
  /** One file's part of a profile request. */
  file: PromptTemplate;
  relationships: PromptTemplate;
  focus: PromptTemplate;
  prefilter: PromptTemplate;
  /** All versions in one string, for cache keys and the index's metadata. */
  version: string;
}

export function loadPromptSet(dir?: string): PromptSet {
  const profile = loadPrompt('profile', dir);
  const file = loadPrompt('file', dir);
  const relationships = loadPrompt('relationships', dir);
  const focus = loadPrompt('focus', dir);
  const prefilter = loadPrompt('prefilter', dir);
  return {
    profile,
    file,
    relationships,
    focus,
    prefilter,
    version: `profile@${profile.version}+file@${file.version}+relationships@${relationships.version}+focus@${focus.version}`,
  };
}
