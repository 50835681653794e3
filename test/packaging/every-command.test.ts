import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { EXECUTABLE, runBin, tempConfigDir } from '../helpers/run-cli.js';

// A smoke of every command with the built binary under the Node running the tests: .ci/run runs this file under
// Node 22, 24 and 26 too, and against the single executable (SVCADM_TEST_EXECUTABLE, with no `node` on PATH). Each
// command succeeds against the emulator and, with --quiet, writes nothing to stderr: no
// warning, from svcadm or from Node.

interface CatalogCommand {
  command: string;
  commands?: CatalogCommand[];
}

/** The leaf commands of `svcadm commands --json` (each named by its whole path), as words. */
function leaves(commands: CatalogCommand[]): string[][] {
  return commands.flatMap((c) => (c.commands?.length ? leaves(c.commands) : [c.command.split(' ')]));
}

let emu: TestEmulator;
let configDir: string;
let env: Record<string, string>;
beforeAll(async () => {
  emu = await startTestEmulator();
  configDir = tempConfigDir();
  env = {
    SVCADM_CONFIG_DIR: configDir,
    SVCADM_DOMAIN: emu.url,
    SVCADM_CLIENT_ID: emu.admin.clientId,
    SVCADM_CLIENT_SECRET: emu.admin.clientSecret,
  };
});
afterAll(async () => {
  await emu?.close();
});

/** How each command is run; a command not named here (a new one) is smoked through its --help. */
function invocations(): Record<string, string[][]> {
  const f = emu.fixtures;
  const profile = ['--domain', emu.url, '--client-id', emu.admin.clientId];
  return {
    'profiles add': [['profiles', 'add', 'smoke', ...profile, '--client-secret-stdin', '--insecure-storage']],
    'profiles list': [['profiles', 'list']],
    'profiles use': [['profiles', 'use', 'smoke']],
    'profiles show': [['profiles', 'show', 'smoke']],
    'profiles remove': [['profiles', 'remove', 'smoke']],
    'auth token': [['auth', 'token']],
    'auth status': [['auth', 'status']],
    'profiles migrate-secrets': [['profiles', 'migrate-secrets', '--help']],
    'policies get': [['policies', 'get', f.policyIds[0] ?? '', '-o', 'json']],
    'policies list': [['policies', 'list', '--all', '-o', 'json']],
    'connections list': [['connections', 'list', '--strategy', 'auth0', '--all', '-o', 'ndjson']],
    'users find': [['users', 'find', '--email', 'alice@example.com', '-o', 'json']],
    'events tail': [['events', 'tail', '--since', '7d', '--max-events', '2', '-o', 'ndjson']],
    'provisionings list': [['provisionings', 'list', '-o', 'json', '--take', '2']],
    'users permissions': [['users', 'permissions', f.userId, '--all', '-o', 'ndjson']],
    'connections delete-user': [
      ['connections', 'delete-user', f.databaseConnectionId, '--email', 'nobody@example.com', '--yes', '-o', 'json'],
    ],
    api: [['api', `/rate-limit-policies/${f.policyIds[0] ?? ''}`]],
    'emulator trigger': [['emulator', 'trigger', 'user.created', '-o', 'json']],
    'emulator fault': [['emulator', 'fault', '/nothing-here', '--status', '503', '-o', 'json']],
    'emulator reset': [['emulator', 'reset', '--faults', '-o', 'json']],
    completion: [
      ['completion', 'bash'],
      ['completion', 'zsh'],
      ['completion', 'fish'],
    ],
    commands: [['commands', '--json']],
  };
}

describe(
  EXECUTABLE ? `every command of the executable ${EXECUTABLE}` : `every command under Node ${process.versions.node}`,
  () => {
    it('succeeds against the emulator with nothing on stderr', async () => {
      const catalog = await runBin(['commands', '--json'], env);
      expect(catalog.code).toBe(0);
      const all = leaves((JSON.parse(catalog.stdout) as { commands: CatalogCommand[] }).commands);
      const table = invocations();
      const failures: string[] = [];
      for (const words of all) {
        const key = words.join(' ');
        for (const argv of table[key] ?? [[...words, '--help']]) {
          // stdin: the secret `profiles add --client-secret-stdin` reads; the other commands do not read it.
          // --quiet: notices (`Now using profile …`) are chatter; a warning, from svcadm or Node, still shows.
          const r = await runBin(['--quiet', ...argv], env, emu.admin.clientSecret);
          if (r.code !== 0 || r.stderr !== '') {
            failures.push(`svcadm ${argv.join(' ')}: exit ${r.code}, stderr ${JSON.stringify(r.stderr.slice(0, 300))}`);
          }
        }
      }
      expect(failures).toEqual([]);
      // Every command of the table is one the tree has: none is smoked through --help by mistake.
      expect(Object.keys(table).filter((key) => !all.some((words) => words.join(' ') === key))).toEqual([]);
    }, 120_000);
  },
);
