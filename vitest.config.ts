import { defineConfig } from 'vitest/config';
import { SkippedTestsReporter } from './test/helpers/skipped-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // The default report, then the title of every skipped test (issue 29 point 10).
    reporters: ['default', new SkippedTestsReporter()],
  },
});
