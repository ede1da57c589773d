import { defineConfig } from 'vitest/config';
import SummaryLine from './tests/support/summaryLine.js';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'bench/eval/**/*.test.ts'],
    exclude: ['tests/fixtures/**', 'node_modules/**', 'bench/.work/**'],
    setupFiles: ['tests/support/cleanup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', new SummaryLine()],
  },
});
