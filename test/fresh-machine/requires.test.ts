import { execFile } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { onPath, requireProgram } from '../helpers/requires.js';

// A fresh machine: vitest runs a fixture that needs zsh and fish with PATH holding only `node`.
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(import.meta.dirname, 'fixture');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

function shadowPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-shadow-path-'));
  symlinkSync(process.execPath, join(dir, 'node'));
  return dir;
}

interface Outcome {
  code: number;
  tests: { title: string; status: string; failureMessages: string[] }[];
  suiteMessage: string;
}

async function runFixture(env: Record<string, string>): Promise<Outcome> {
  const environment = { HOME: process.env.HOME ?? tmpdir(), ...env };
  const result = await run(process.execPath, [VITEST, 'run', '--root', FIXTURE, '--reporter=json'], {
    cwd: FIXTURE,
    env: environment,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
  );
  const report = JSON.parse(result.stdout) as {
    testResults: { message: string; assertionResults: Outcome['tests'] }[];
  };
  const [file] = report.testResults;
  return {
    code: result.code,
    tests: (file?.assertionResults ?? []).map(({ title, status, failureMessages }) => ({
      title,
      status,
      failureMessages,
    })),
    suiteMessage: file?.message ?? '',
  };
}

describe('tests that need a program', () => {
  it('are skipped where it is missing, naming it and how to install it; the rest run', async () => {
    const outcome = await runFixture({ PATH: shadowPath() });
    expect(outcome).toEqual({
      code: 0,
      tests: [
        { title: 'needs nothing', status: 'passed', failureMessages: [] },
        {
          title: 'runs zsh [skipped: zsh is not on PATH (apt-get install -y zsh)]',
          status: 'skipped',
          failureMessages: [],
        },
        {
          title: 'runs fish [skipped: fish is not on PATH (apt-get install -y fish)]',
          status: 'skipped',
          failureMessages: [],
        },
      ],
      suiteMessage: '',
    });
  });

  it('are listed by file and title at the end of the run (the reporter vitest.config.ts adds to npm test)', async () => {
    const reporter = join(ROOT, 'test', 'helpers', 'skipped-reporter.ts');
    const { stdout } = await run(
      process.execPath,
      [VITEST, 'run', '--root', FIXTURE, '--reporter=default', `--reporter=${reporter}`],
      { cwd: FIXTURE, env: { HOME: process.env.HOME ?? tmpdir(), PATH: shadowPath(), NO_COLOR: '1' } },
    );
    expect(stdout.slice(stdout.indexOf('\nSkipped tests'))).toBe(
      [
        '',
        'Skipped tests (2):',
        '  needs-shells.fixture.ts > runs zsh [skipped: zsh is not on PATH (apt-get install -y zsh)]',
        '  needs-shells.fixture.ts > runs fish [skipped: fish is not on PATH (apt-get install -y fish)]',
        '',
      ].join('\n'),
    );
  });

  it('fail the run, naming it, with SVCADM_TEST_REQUIRE_ALL=1 (as .ci/run sets)', async () => {
    const outcome = await runFixture({ PATH: shadowPath(), SVCADM_TEST_REQUIRE_ALL: '1' });
    expect(outcome.code).toBe(1);
    expect(outcome.tests).toEqual([]);
    expect(outcome.suiteMessage.split('\n')[0]).toBe(
      'zsh is not on PATH (apt-get install -y zsh), and SVCADM_TEST_REQUIRE_ALL=1 asks for every test to run',
    );
  });

  const shells = requireProgram('zsh');
  const fish = requireProgram('fish');
  it.skipIf(shells.missing || fish.missing)(
    shells.title(fish.title('run where it is there, also with SVCADM_TEST_REQUIRE_ALL=1')),
    async () => {
      const path = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
      const outcome = await runFixture({ PATH: path, SVCADM_TEST_REQUIRE_ALL: '1' });
      expect(outcome.code).toBe(0);
      expect(outcome.tests.map((t) => `${t.status} ${t.title}`)).toEqual([
        'passed needs nothing',
        'passed runs zsh',
        'passed runs fish',
      ]);
    },
  );

  it('are found by looking at PATH alone, without a shell', () => {
    expect(onPath('node', shadowPath())).toBe(true);
    expect(onPath('zsh', shadowPath())).toBe(false);
    expect(onPath('node', '')).toBe(false);
  });
});
