import { defineConfig } from 'vitest/config';
import SummaryLine from './tests/support/summaryLine.js';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'bench/eval/**/*.test.ts'],
    exclude: ['tests/fixtures/**', 'node_modules/**', 'bench/.work/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default', new SummaryLine()],
  },
});
