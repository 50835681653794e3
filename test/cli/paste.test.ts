import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pasteHint, pinnedOptions } from '../../src/cli/paste.js';
import { shellWord } from '../../src/util/shell-word.js';
import { closeAfterEach } from '../helpers/close-after-each.js';
import { startFixtureTenant } from '../helpers/fixture-tenant.js';
import { startLoopback } from '../helpers/loopback-server.js';
import { requireProgram } from '../helpers/requires.js';
import { runCli } from '../helpers/run-cli.js';

const work = mkdtempSync(join(tmpdir(), 'svcadm-hints-'));
const trap = join(work, 'pwned');

/** What `svcadm <args>` pasted into each shell would receive as arguments (svcadm stands in as a function). */
function argumentsIn(shell: 'bash' | 'zsh' | 'fish', line: string): string[] {
  const script =
    shell === 'fish'
      ? `function svcadm; printf '%s\\n' $argv; end; ${line}`
      : `svcadm() { printf '%s\\n' "$@"; }; ${line}`;
  const argv = { bash: ['-c', script], zsh: ['-f', '-c', script], fish: ['--no-config', '-c', script] }[shell];
  const out = execFileSync(shell, argv, { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: work } });
  return out.split('\n').slice(0, -1);
}

const SHELLS = ['bash', 'zsh', 'fish'] as const;
const needs = { bash: requireProgram('bash'), zsh: requireProgram('zsh'), fish: requireProgram('fish') };
/** The shells on this machine; a test that reads a line back in each says in its title which it left out. */
const PRESENT = SHELLS.filter((shell) => !needs[shell].missing);
const inPresentShells = (name: string) =>
  PRESENT.length === SHELLS.length
    ? name
    : `${name} [in ${PRESENT.join(', ')} only: ${SHELLS.map((s) => needs[s].why)
        .filter((w) => w !== '')
        .join('; ')}]`;

describe('shell words', () => {
  const values = [
    'plain-word_1.2:3@x',
    'two words',
    `$(touch ${trap})`,
    `\`touch ${trap}\``,
    "it's",
    'back\\slash',
    "\\'",
    'ends with \\',
    '*',
    '!$ ~ ; | & > <',
    '"double"',
    'ünïcödé',
    '',
  ];

  for (const shell of SHELLS) {
    it.skipIf(needs[shell].missing)(needs[shell].title(`read back as they were in ${shell}, and nothing runs`), () => {
      const line = `svcadm ${values.map(shellWord).join(' ')}`;
      expect(argumentsIn(shell, line)).toEqual(values);
      expect(existsSync(trap)).toBe(false);
    });
  }
});

describe('pasteable lines', () => {
  const globals = (credentials: Record<string, string>, outputArgs: string[] = []) => ({ credentials, outputArgs });

  it('carry the options that chose the tenant and the output, as given', () => {
    expect(pinnedOptions(globals({ profile: 'prod' }, ['-o', 'wide']), {}, 'prod')).toEqual([
      '-p',
      'prod',
      '-o',
      'wide',
    ]);
    expect(pinnedOptions(globals({ domain: 'a.example.com' }), {}, undefined)).toEqual(['--domain', 'a.example.com']);
    expect(pinnedOptions(globals({ profile: 'p', domain: 'd' }, ['--json']), {}, 'p')).toEqual([
      '-p',
      'p',
      '--domain',
      'd',
      '--json',
    ]);
  });

  it('name the tenant an environment variable or the current profile chose, so a paste cannot go elsewhere', () => {
    expect(pinnedOptions(globals({}), { SVCADM_PROFILE: 'ci' }, 'ci')).toEqual(['-p', 'ci']);
    expect(pinnedOptions(globals({}), { SVCADM_DOMAIN: 'b.example.com' }, undefined)).toEqual([
      '--domain',
      'b.example.com',
    ]);
    // A named profile is taken as a unit: SVCADM_DOMAIN does not apply to it.
    expect(pinnedOptions(globals({}), { SVCADM_PROFILE: 'ci', SVCADM_DOMAIN: 'x' }, 'ci')).toEqual(['-p', 'ci']);
    expect(pinnedOptions(globals({}), {}, 'current-one')).toEqual(['-p', 'current-one']);
    expect(pinnedOptions(globals({}), {}, undefined)).toEqual([]);
  });

  it(
    inPresentShells(
      'show service text neutralised and quoted: no escape reaches the terminal, nothing runs when pasted',
    ),
    () => {
      const cursor = `abc\x1b[2J$(touch ${trap})`;
      const line = pasteHint(['-p', 'prod'])(['events', 'tail', '--from', cursor]);
      expect(line).toBe(`svcadm -p prod events tail --from 'abc'\\\\'x1b[2J$(touch ${trap})'`);
      expect(line).not.toContain('\x1b');
      for (const shell of PRESENT) {
        expect(argumentsIn(shell, line)).toEqual([
          '-p',
          'prod',
          'events',
          'tail',
          '--from',
          `abc\\x1b[2J$(touch ${trap})`,
        ]);
      }
      expect(existsSync(trap)).toBe(false);
    },
  );
});

describe('hints printed by commands', () => {
  const closeAfterTest = closeAfterEach();

  it('the next page: -p as given, with -o', async () => {
    const tenant = await startFixtureTenant();
    closeAfterTest(tenant);
    const env = { SVCADM_CONFIG_DIR: tenant.configDir(), SVCADM_PROFILE: 'demo' };
    const r = await runCli(['provisionings', 'list', '-o', 'wide'], { env });
    expect(r.stderr).toBe('Next page: svcadm -p demo -o wide provisionings list --from cp_page2\n');
    const flag = await runCli(['--domain', tenant.url, '--token', 't', 'provisionings', 'list', '-o', 'table'], {
      env: { SVCADM_CONFIG_DIR: tenant.configDir() },
    });
    // The token is never repeated: pasting asks for credentials again rather than printing a secret.
    expect(flag.stderr).toBe(`Next page: svcadm --domain ${tenant.url} -o table provisionings list --from cp_page2\n`);
  });

  it(
    inPresentShells('the resume line of an interrupted tail: a hostile cursor is quoted, and --query is carried'),
    async () => {
      // Visible ASCII (svcadm adopts no other cursor), yet shell syntax: `${IFS}` stands for the space.
      const cursor = `c1$(touch\${IFS}${trap})'\`x\``;
      // The stream stays open: the test interrupts the tail.
      const server = await startLoopback([
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const event = { id: 'evt_0000000000000001', type: 'user.created', time: '2025-06-05T11:00:00Z' };
          res.write(`id: ${cursor}\nevent: user.created\ndata: ${JSON.stringify({ offset: cursor, event })}\n\n`);
        },
      ]);
      closeAfterTest(server);
      const { url } = server;
      const interrupt = new AbortController();
      const r = await runCli(['events', 'tail', '--query', "event.id || 'none'", '--type', 'user.created'], {
        env: { SVCADM_DOMAIN: url, SVCADM_TOKEN: 't' },
        interrupt: interrupt.signal,
        onStdout: () => interrupt.abort(),
      });
      expect(r.code).toBe(130);
      expect(r.stdout).toBe('"evt_0000000000000001"\n');
      const line = r.stderr.split('\n')[1]?.replace(/^resume with: /, '') ?? '';
      expect(line).toBe(
        `svcadm --domain ${url} --query 'event.id || '\\''none'\\' events tail --from 'c1$(touch\${IFS}${trap})'\\''\`x\`' --type user.created`,
      );
      for (const shell of PRESENT) {
        expect(argumentsIn(shell, line)).toEqual([
          '--domain',
          url,
          '--query',
          "event.id || 'none'",
          'events',
          'tail',
          '--from',
          cursor,
          '--type',
          'user.created',
        ]);
      }
      expect(existsSync(trap)).toBe(false);
    },
  );
});
