import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { makeTempDir } from '../support/tempRepo.js';

function configFile(text: string): string {
  const dir = makeTempDir();
  const file = path.join(dir, 'indexer_config.yaml');
  writeFileSync(file, text);
  return file;
}

describe('loading configuration', () => {
  it('uses the defaults when there is no file', async () => {
    const { config, file } = await loadConfig({ cwd: makeTempDir(), env: {} });
    expect(file).toBeNull();
    expect(config.performance.max_concurrent_files).toBe(5);
    expect(config.file_analysis.supported_extensions).toEqual(expect.arrayContaining(['.tsx', '.jsx', '.mjs', '.cjs']));
  });

  it('layers defaults < file < environment < flags', async () => {
    const file = configFile('performance:\n  max_concurrent_files: 3\nllm:\n  model: from-file\n  temperature: 0.1\n');
    const { config } = await loadConfig({
      configPath: file,
      env: { CODERAG_MODEL: 'from-env', CODERAG_MAX_CONCURRENCY: '7' },
      overrides: { performance: { max_concurrent_files: 9 } },
    });
    expect(config.llm.temperature).toBe(0.1);
    expect(config.llm.model).toBe('from-env');
    expect(config.performance.max_concurrent_files).toBe(9);
    expect(config.llm.max_retries).toBe(3);
  });

  it('rejects an unknown key by its path', async () => {
    const file = configFile('llm:\n  max_retry: 5\n');
    await expect(loadConfig({ configPath: file, env: {} })).rejects.toThrow('llm.max_retry: unknown key');
  });

  it('rejects an unknown section', async () => {
    await expect(loadConfig({ configPath: configFile('caching:\n  on: true\n'), env: {} })).rejects.toThrow('caching: unknown key');
  });

  it('rejects a wrong type by its path', async () => {
    const file = configFile('llm:\n  max_retries: three\n');
    await expect(loadConfig({ configPath: file, env: {} })).rejects.toThrow(/llm\.max_retries: .*number/);
  });

  it('rejects a wrong type that came from the environment, naming the variable that set it', async () => {
    await expect(loadConfig({ cwd: makeTempDir(), env: { CODERAG_MAX_CONCURRENCY: 'lots' } })).rejects.toThrow(
      /performance\.max_concurrent_files \(from CODERAG_MAX_CONCURRENCY=lots\): .*expected number, received string/,
    );
  });

  it('does not blame the environment for a value a flag set over it', async () => {
    const error = await loadConfig({ cwd: makeTempDir(), env: { CODERAG_MAX_CONCURRENCY: '7' }, overrides: { performance: { max_concurrent_files: -1 } } }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/performance\.max_concurrent_files: /);
    expect((error as Error).message).not.toContain('CODERAG_MAX_CONCURRENCY');
  });

  it('says when the file is not YAML, without a colon that leads nowhere', async () => {
    const error = await loadConfig({ configPath: configFile('llm: [unclosed\n'), env: {} }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/not valid YAML: .*line \d+, column \d+$/);
  });

  it('points at the commented config that ships with CodeRAG', async () => {
    const error = await loadConfig({ configPath: configFile('llm:\n  max_retries: three\n'), env: {} }).catch((e: { hint?: string }) => e);
    const shipped = path.resolve(import.meta.dirname, '../../indexer_config.yaml');
    expect((error as { hint?: string }).hint).toBe(`see ${shipped} for every key, its type and its default`);
  });

  it.each(['../escape_{repo_name}.json', 'sub/{repo_name}.json', '{repo_name}_index.yaml'])('rejects an index file name that is a path or not JSON: %s', async (pattern) => {
    await expect(loadConfig({ configPath: configFile(`output:\n  index_filename_pattern: "${pattern}"\n`), env: {} })).rejects.toThrow(/output\.index_filename_pattern: must/);
  });

  it('says when an explicit config file is missing', async () => {
    await expect(loadConfig({ configPath: '/nope/indexer_config.yaml', env: {} })).rejects.toThrow('config file not found');
  });

  it('reads the project\'s own indexer_config.yaml without complaint', async () => {
    const { config } = await loadConfig({ configPath: path.resolve(import.meta.dirname, '../../indexer_config.yaml'), env: {} });
    expect(config.relationships.relationship_types).toMatchObject({ direct_match: 1, partial_match: 0.8, reference: 0.6, utility: 0.4 });
  });
});
