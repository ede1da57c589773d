import { describe, expect, it } from 'vitest';
import { ignoreEvents, type IndexEvent } from '../../src/pipeline/events.js';

describe('the events a run reports', () => {
  it('go nowhere for a caller that gives no sink', () => {
    const every: IndexEvent[] = [
      { type: 'info', message: 'i' },
      { type: 'warning', message: 'w' },
      { type: 'repo_start', repo_name: 'r', files: 1 },
      { type: 'file_done', repo_name: 'r', file_path: 'a.ts', status: 'ok', cached: false },
      { type: 'repo_done', repo_name: 'r', output_path: null },
    ];
    for (const event of every) expect(ignoreEvents(event)).toBeUndefined();
  });
});
