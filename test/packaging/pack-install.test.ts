import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The tarball as users get it: packed, installed into an empty prefix without dev dependencies, then run.
const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'svcadm-pack-'));
const prefix = join(work, 'prefix');
const bin = join(prefix, 'node_modules', '.bin', 'svcadm');
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** npm with the caller's configuration but not the variables of a surrounding `npm test`. */
function npmEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_(package|lifecycle)_|^INIT_CWD$/.test(k)),
  );
  return { ...env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' };
}

/** The installed binary's environment: nothing of ours but node on PATH and a private config folder. */
function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    HOME: work,
    SVCADM_CONFIG_DIR: join(work, 'config'),
    ...extra,
  };
}

let packedFiles: string[] = [];
/** The `npm warn` lines of the install. */
let installWarnings: string[] = [];
let emulator: ChildProcess | undefined;

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (`npm test` does)');
  }
  // --ignore-scripts: `prepare` would rebuild dist/ under the feet of tests running alongside; npm test built it.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    env: npmEnv(),
  });
  const [pack] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  packedFiles = pack.files.map((f) => f.path).sort();
  mkdirSync(prefix);
  const install = await run(
    'npm',
    [
      'install',
      '--omit=dev',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--prefix',
      prefix,
      join(work, pack.filename),
    ],
    { cwd: work, env: { ...npmEnv(), npm_config_loglevel: 'warn' } },
  );
  installWarnings = install.stderr.split('\n').filter((line) => line.startsWith('npm warn'));
}, 120_000);

afterAll(async () => {
  if (emulator && emulator.exitCode === null) {
    const exited = once(emulator, 'exit');
    emulator.kill('SIGTERM');
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

describe('npm install of the tarball', () => {
  it("warns of nothing but npm 11's allowScripts note on `prepare`, which the README explains", () => {
    // npm 11.19+: "npm warn install-scripts … svcadm@x (prepare: npm run build)"; npm 10: nothing.
    const others = installWarnings.filter(
      (line) =>
        !/^npm warn install-scripts( |$)/.test(line) ||
        (/^npm warn install-scripts {3}\S/.test(line) &&
          !/^npm warn install-scripts {3}svcadm@[\d.]+ \(prepare: npm run build\)$/.test(line)),
    );
    expect(others).toEqual([]);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    if (installWarnings.length > 0) {
      expect(readme).toContain(`covered by allowScripts: svcadm@${version} (prepare: npm run build)`);
    }
  });
});

describe('npm pack', () => {
  it('holds only what runs: built code, bin, completions, the manual page, README, licence', () => {
    for (const file of packedFiles) {
      expect(file).toMatch(
        /^(dist\/.+\.js(\.map)?|bin\/svcadm\.js|completions\/(svcadm\.bash|_svcadm|svcadm\.fish)|man\/svcadm\.1|README\.md|LICENSE|package\.json)$/,
      );
    }
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'bin/svcadm.js',
        'completions/_svcadm',
        'completions/svcadm.bash',
        'completions/svcadm.fish',
        'dist/emulator/server.js',
        'dist/main.js',
        'dist/main.js.map',
        'man/svcadm.1',
        'package.json',
      ]),
    );
  });

  it('installs without dev dependencies', () => {
    for (const dev of ['typescript', 'vitest', 'esbuild', '@biomejs/biome']) {
      expect(existsSync(join(prefix, 'node_modules', dev)), dev).toBe(false);
    }
  });
});

describe('the installed copy', () => {
  it('prints its version', async () => {
    expect((await run(bin, ['--version'], { env: cliEnv() })).stdout).toBe(`${version}\n`);
  });

  it('prints a completion script like the packed one', async () => {
    const { stdout } = await run(bin, ['completion', 'bash'], { env: cliEnv() });
    expect(stdout).toBe(readFileSync(join(prefix, 'node_modules', 'svcadm', 'completions', 'svcadm.bash'), 'utf8'));
  });

  it('runs the emulator and a command against it', async () => {
    const child = spawn(bin, ['emulator', '--port', '0', '--json'], {
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    emulator = child;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const lines = createInterface({ input: child.stdout });
    let started = false;
    const first = await Promise.race([
      once(lines, 'line').then(([line]) => line as string),
      once(child, 'exit').then(([code]) => {
        if (started) return '';
        throw new Error(`svcadm emulator exited with ${code} before starting: ${stderr}`);
      }),
    ]);
    started = true;
    const start = JSON.parse(first) as { env: Record<string, string>; fixtures: { policyIds: string[] } };
    const id = start.fixtures.policyIds[0] ?? '';

    const { stdout } = await run(bin, ['policies', 'get', id, '-o', 'json'], { env: cliEnv(start.env) });
    expect(JSON.parse(stdout)).toMatchObject({ id });
  }, 30_000);
});
