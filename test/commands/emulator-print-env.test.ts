import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { SseClient } from '../emulator/support.js';
import { requireProgram } from '../helpers/requires.js';
import { BIN, runBin, runCli, tempConfigDir } from '../helpers/run-cli.js';

// These tests run the built binary (`npm run build`; `npm test` builds first) in real shells.

/** A folder holding an `svcadm` command that runs the built binary, to put first on PATH. */
function svcadmOnPath(): string {
  const dir = tempConfigDir();
  const script = join(dir, 'svcadm');
  writeFileSync(script, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(script, 0o755);
  return dir;
}

/** The examples of `svcadm emulator --help`, as written there. */
async function helpExamples(): Promise<string[]> {
  const help = await runCli(['emulator', '--help']);
  return help.stdout
    .slice(help.stdout.indexOf('\nExamples:\n'))
    .split('\n')
    .filter((line) => line.startsWith('  $ '))
    .map((line) => line.slice(4));
}

const pids: number[] = [];
afterEach(() => {
  // A test that failed half-way must not leave its emulator running.
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid);
    } catch {}
  }
});

interface ShellRun {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the next stdout line. */
  line(): Promise<string>;
  stderr(): string;
}

function runShell(shell: string, script: string, path: string): ShellRun {
  const child = spawn(shell, ['-c', script], {
    env: {
      PATH: `${path}:${process.env.PATH}`,
      HOME: process.env.HOME,
      SVCADM_CONFIG_DIR: tempConfigDir(),
    },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    child,
    async line() {
      const next = await lines.next();
      if (next.done) throw new Error(`${shell} ended its output early; stderr: ${stderr}`);
      return next.value;
    },
    stderr: () => stderr,
  };
}

async function tokenFor(url: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      audience: `${url}/api/v2/`,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * Runs `start` (a help example) in `shell`, uses the emulator from that shell, then, once the test holds an event
 * stream open, runs `stop` (the help's kill example): the stream ending shows the emulator stopped.
 */
async function startUseAndStop(shell: string, start: string, stop: string, read: string): Promise<void> {
  const run = runShell(
    shell,
    [
      start,
      'printf "%s %s %s %s\\n" "$SVCADM_DOMAIN" "$SVCADM_CLIENT_ID" "$SVCADM_CLIENT_SECRET" "$SVCADM_EMULATOR_PID"',
      'svcadm provisionings list --take 2 -o json',
      'echo END',
      read,
      stop,
    ].join('\n'),
    svcadmOnPath(),
  );
  const [url = '', clientId = '', secret = '', pid = ''] = (await run.line()).split(' ');
  pids.push(Number(pid));
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(pid).toMatch(/^\d+$/);
  // The emulator was ready when eval returned: the first command against it succeeds.
  let json = '';
  for (let line = await run.line(); line !== 'END'; line = await run.line()) json += line;
  expect((JSON.parse(json) as { directory_provisionings: unknown[] }).directory_provisionings).toHaveLength(2);
  const stream = await SseClient.open(`${url}/api/v2/events`, await tokenFor(url, clientId, secret));
  expect(stream.status).toBe(200);
  run.child.stdin.end('go\n');
  const [code] = await once(run.child, 'exit');
  expect(run.stderr()).toMatch(
    /^svcadm emulator: running in the background at http:\/\/127\.0\.0\.1:\d+ \(process \d+\)/,
  );
  expect(code).toBe(0);
  await stream.waitFor(() => stream.ended);
}

const zsh = requireProgram('zsh');
const fish = requireProgram('fish');
const shells = { bash: requireProgram('bash'), zsh, fish };

describe('svcadm emulator --print-env', () => {
  it('prints only export lines, with the process id, and exits at once (its child holds no pipe)', async () => {
    const result = await runBin(['emulator', '--print-env', '--port', '0', '--seed', '5'], {
      SVCADM_CONFIG_DIR: tempConfigDir(),
    });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => line.replace(/=.*/, ''))).toEqual([
      'export SVCADM_DOMAIN',
      'export SVCADM_CLIENT_ID',
      'export SVCADM_CLIENT_SECRET',
      'export SVCADM_READ_ONLY_CLIENT_ID',
      'export SVCADM_READ_ONLY_CLIENT_SECRET',
      'export SVCADM_EMULATOR_PID',
    ]);
    const vars = Object.fromEntries(lines.map((line) => line.slice('export '.length).split('=') as [string, string]));
    pids.push(Number(vars.SVCADM_EMULATOR_PID));
    expect(result.stderr).toBe(
      `svcadm emulator: running in the background at ${vars.SVCADM_DOMAIN} (process ${vars.SVCADM_EMULATOR_PID}); stop it with: kill "$SVCADM_EMULATOR_PID"\n`,
    );
    // Readiness was awaited: the emulator answers now, with the secret it printed (random per start).
    await tokenFor(vars.SVCADM_DOMAIN ?? '', vars.SVCADM_CLIENT_ID ?? '', vars.SVCADM_CLIENT_SECRET ?? '');
    // Issue 38 point 14: the read-only client's credentials too, as a read-only profile's SVCADM_CLIENT_* take them.
    const readOnly = {
      SVCADM_CONFIG_DIR: tempConfigDir(),
      SVCADM_DOMAIN: vars.SVCADM_DOMAIN ?? '',
      SVCADM_CLIENT_ID: vars.SVCADM_READ_ONLY_CLIENT_ID ?? '',
      SVCADM_CLIENT_SECRET: vars.SVCADM_READ_ONLY_CLIENT_SECRET ?? '',
      NO_COLOR: '1',
    };
    expect(vars.SVCADM_READ_ONLY_CLIENT_ID).not.toBe(vars.SVCADM_CLIENT_ID);
    expect((await runCli(['auth', 'status', '-o', 'json'], { env: readOnly })).code).toBe(0);
    const write = await runCli(
      ['api', 'DELETE', '/connections/con_x/users?email=a@example.com', '--yes', '--correlation-id', 'ro'],
      {
        env: readOnly,
      },
    );
    expect([write.code, write.stderr.split('\n')[1]]).toEqual([
      4,
      "svcadm: forbidden: Insufficient scope, expected any of: delete:users — grant the scope delete:users to the client in the tenant's settings; correlation id ro",
    ]);
    process.kill(Number(vars.SVCADM_EMULATOR_PID), 'SIGTERM');
  });

  it('the help examples work as written in bash: eval "$(…)" starts it, kill "$SVCADM_EMULATOR_PID" stops it', async () => {
    const examples = await helpExamples();
    const start = examples.find((e) => e.startsWith('eval "$(svcadm emulator --print-env'));
    const stop = examples.find((e) => e.startsWith('kill "$SVCADM_EMULATOR_PID"'));
    expect(start).toBe('eval "$(svcadm emulator --print-env --port 0)"   # bash, zsh');
    expect(stop).toBe('kill "$SVCADM_EMULATOR_PID"   # stops it');
    await startUseAndStop('bash', start ?? '', stop ?? '', 'read -r go');
  });

  it.skipIf(zsh.missing)(zsh.title('the same examples work in zsh'), async () => {
    const examples = await helpExamples();
    const start = examples.find((e) => e.startsWith('eval "$(svcadm emulator --print-env')) ?? '';
    const stop = examples.find((e) => e.startsWith('kill "$SVCADM_EMULATOR_PID"')) ?? '';
    await startUseAndStop('zsh', start, stop, 'read -r go');
  });

  it.skipIf(fish.missing)(
    fish.title('the fish example works in fish, and so do the default export lines'),
    async () => {
      const examples = await helpExamples();
      const start = examples.find((e) => e.startsWith('eval (svcadm emulator --print-env fish'));
      expect(start).toBe('eval (svcadm emulator --print-env fish --port 0)   # fish');
      await startUseAndStop('fish', start ?? '', 'kill $SVCADM_EMULATOR_PID', 'read go');
      await startUseAndStop(
        'fish',
        'eval "$(svcadm emulator --print-env --port 0)"',
        'kill $SVCADM_EMULATOR_PID',
        'read go',
      );
    },
  );

  for (const [shell, syntax] of [
    ['bash', 'sh'],
    ['zsh', 'zsh'],
    ['fish', 'fish'],
  ] as const) {
    const needs = shells[shell];
    it.skipIf(needs.missing)(
      needs.title(`${shell} gets a chosen secret with quotes and backslashes intact (--print-env ${syntax})`),
      async () => {
        const secret = `it's\\a"$HOME"\\\\x`;
        const run = runShell(
          shell,
          [
            `eval "$(svcadm emulator --print-env ${syntax} --port 0 --client-secret ${shell === 'fish' ? `'it\\'s\\\\a"$HOME"\\\\\\\\x'` : `'it'\\''s\\a"$HOME"\\\\x'`})"`,
            'printf "%s\\n" "$SVCADM_EMULATOR_PID"',
            'printf "%s\\n" "$SVCADM_CLIENT_SECRET"',
            'kill $SVCADM_EMULATOR_PID',
          ].join('\n'),
          svcadmOnPath(),
        );
        pids.push(Number(await run.line()));
        expect(await run.line()).toBe(secret);
        const [code] = await once(run.child, 'exit');
        expect(run.stderr()).not.toContain('svcadm: ');
        expect(code).toBe(0);
      },
    );
  }

  it('exits 2 with nothing on stdout when the port is taken: a failure to start is reported', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const result = await runBin(['emulator', '--print-env', '--port', String(port)], {
        SVCADM_CONFIG_DIR: tempConfigDir(),
      });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `svcadm: port ${port} is already in use — pick another with --port, or --port 0 for a free one\n`,
      });
    } finally {
      taken.close();
    }
  });

  it('refuses an unknown shell, --json and --log-requests with a usage error', async () => {
    for (const argv of [
      ['emulator', '--print-env', 'tcsh'],
      ['emulator', '--print-env', '--json'],
      ['emulator', '--print-env', '--log-requests'],
    ]) {
      const result = await runCli(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
    }
    expect((await runCli(['emulator', '--print-env', 'tcsh'])).stderr).toBe(
      "svcadm: --print-env takes sh, bash, zsh, fish, got 'tcsh'\n",
    );
  });
});
