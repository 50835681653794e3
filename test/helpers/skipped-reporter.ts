import type { Reporter, TestModule, Vitest } from 'vitest/node';

/**
 * A reporter that, after the run, lists every skipped test by file and title (a test that needs a missing program
 * says why in its title: `requires.ts`), so that `npm test` never skips silently. A run narrowed with `-t` leaves
 * tests out on purpose: it lists nothing.
 */
export class SkippedTestsReporter implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (this.#vitest === undefined || this.#vitest.config.testNamePattern !== undefined) return;
    const skipped = modules.flatMap((m) =>
      [...m.children.allTests('skipped')].map((t) => `${m.relativeModuleId} > ${t.fullName}`),
    );
    if (skipped.length === 0) return;
    const title = `Skipped ${skipped.length === 1 ? 'test' : `tests (${skipped.length})`}:`;
    this.#vitest.logger.log(`\n${title}\n${skipped.map((s) => `  ${s}`).join('\n')}`);
  }
}

// Vitest loads a reporter given by path (`--reporter=<path>`) from its default export.
export default SkippedTestsReporter;
