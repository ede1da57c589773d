/**
 * Configuration is read once per run: defaults < config file < environment < flags, validated together, so
 * an error names the key path whichever layer it came from. API keys are never part of it: they are read
 * from the environment by the provider selection alone.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { configSchema, type Config } from './schema.js';
import { ConfigError } from '../shared/errors.js';

export const DEFAULT_CONFIG_FILE = 'indexer_config.yaml';
/**
 * The commented config that ships with CodeRAG (package.json's `files`), two folders above this module whether it
 * runs as source (src/config), compiled (dist/config) or bundled (dist/bin).
 */
const SHIPPED_CONFIG = fileURLToPath(new URL(`../../${DEFAULT_CONFIG_FILE}`, import.meta.url));

type Layer = Record<string, unknown>;

/** Environment variables that set configuration keys (keys and secrets are not among them). */
const ENV_KEYS: Record<string, { path: [string, string]; parse: (v: string) => unknown }> = {
  CODERAG_PROVIDER: { path: ['llm', 'model_provider'], parse: (v) => v },
  CODERAG_MODEL: { path: ['llm', 'model'], parse: (v) => v },
  CODERAG_MAX_CONCURRENCY: { path: ['performance', 'max_concurrent_files'], parse: numberOrText },
  CODERAG_INDEXES_DIR: { path: ['paths', 'output_dir'], parse: (v) => v },
  CODERAG_CACHE_DIR: { path: ['paths', 'cache_dir'], parse: (v) => v },
};

/** A number when the text is one; else the text, which validation then calls a string, not NaN. */
function numberOrText(value: string): unknown {
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? n : value;
}

export interface LoadedConfig {
  config: Config;
  /** The file read, or null when only defaults (and env, flags) apply. */
  file: string | null;
}

export interface LoadConfigOptions {
  /** An explicit `--config` path: it must exist. Without it, `indexer_config.yaml` in `cwd` is used if present. */
  configPath?: string | undefined;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Flag overrides, as a partial config. */
  overrides?: Layer;
}

export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const file = resolveConfigFile(options.configPath, cwd);
  const fileLayer = file ? await readConfigFile(file) : {};
  const overrides = options.overrides ?? {};
  const fromEnv = envLayer(env);
  const merged = deepMerge(deepMerge(fileLayer, fromEnv.layer), overrides);
  // A key a flag overrode did not come from the environment.
  const from = new Map([...fromEnv.sources].filter(([keyPath]) => !hasKeyPath(overrides, keyPath)));
  return { config: validateConfig(merged, file ?? 'configuration', from), file };
}

/** `from` names where a key's value came from when not the file (`performance.max_concurrent_files` -> `CODERAG_MAX_CONCURRENCY=abc`). */
export function validateConfig(input: unknown, source = 'configuration', from: ReadonlyMap<string, string> = new Map()): Config {
  const result = configSchema.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError(`${source}: ${formatIssues(result.error.issues, from)}`, {
    hint: `see ${SHIPPED_CONFIG} for every key, its type and its default`,
  });
}

function resolveConfigFile(configPath: string | undefined, cwd: string): string | null {
  if (configPath) {
    const absolute = path.resolve(cwd, configPath);
    if (!existsSync(absolute)) throw new ConfigError(`config file not found: ${configPath}`);
    return absolute;
  }
  const implicit = path.join(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(implicit) ? implicit : null;
}

async function readConfigFile(file: string): Promise<Layer> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new ConfigError(`cannot read config file ${file}`, { cause });
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (cause) {
    // The parser's first line ends in a colon that introduces a code frame, left out here.
    throw new ConfigError(`${file}: not valid YAML: ${(cause as Error).message.split('\n')[0]?.replace(/:\s*$/, '')}`, { cause });
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`${file}: expected a mapping of sections at the top level`);
  }
  return parsed as Layer;
}

/** The keys the environment sets, and for each (`section.key`) the variable that set it (`NAME=value`). */
function envLayer(env: NodeJS.ProcessEnv): { layer: Layer; sources: Map<string, string> } {
  const layer: Layer = {};
  const sources = new Map<string, string>();
  for (const [name, { path: [section, key], parse }] of Object.entries(ENV_KEYS)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const sectionLayer = (layer[section] ??= {}) as Layer;
    sectionLayer[key] = parse(raw);
    sources.set(`${section}.${key}`, `${name}=${raw}`);
  }
  return { layer, sources };
}

function hasKeyPath(layer: Layer, keyPath: string): boolean {
  const [section = '', key = ''] = keyPath.split('.');
  const inner = layer[section];
  return isPlainObject(inner) && key in inner;
}

function formatIssues(issues: z.core.$ZodIssue[], from: ReadonlyMap<string, string>): string {
  return issues
    .map((issue) => {
      const keyPath = issue.path.map(String).join('.');
      if (issue.code === 'unrecognized_keys') {
        const where = keyPath ? `${keyPath}.` : '';
        return issue.keys.map((k) => `${where}${k}: unknown key`).join('; ');
      }
      const source = from.get(keyPath);
      return `${keyPath || '(top level)'}${source ? ` (from ${source})` : ''}: ${issue.message}`;
    })
    .join('; ');
}

function isPlainObject(value: unknown): value is Layer {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Later layers win; objects merge key by key, arrays and scalars replace. */
export function deepMerge(base: Layer, over: Layer): Layer {
  const out: Layer = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const existing = out[key];
    out[key] = isPlainObject(existing) && isPlainObject(value) ? deepMerge(existing, value) : value;
  }
  return out;
}
