import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireProgram } from '../helpers/requires.js';
import { BIN, runCli } from '../helpers/run-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FILES = { bash: 'svcadm.bash', zsh: '_svcadm', fish: 'svcadm.fish' } as const;
type Shell = keyof typeof FILES;

const scripts = {} as Record<Shell, string>;
const work = mkdtempSync(join(tmpdir(), 'svcadm-completion-'));
const configDir = join(work, 'config');
/** PATH with a `svcadm` that runs the built binary: the scripts call `svcadm __complete profiles`. */
let path = '';

beforeAll(async () => {
  for (const shell of Object.keys(FILES) as Shell[]) {
    const r = await runCli(['completion', shell]);
    expect(r.code).toBe(0);
    scripts[shell] = r.stdout;
    writeFileSync(join(work, FILES[shell]), r.stdout);
  }
  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'svcadm'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'svcadm'), 0o755);
  path = `${bin}:${process.env.PATH ?? ''}`;
  mkdirSync(configDir);
  writeFileSync(
    join(configDir, 'profiles.json'),
    JSON.stringify({
      current: 'prod',
      profiles: {
        prod: { domain: 'https://a.example.com', clientId: 'a' },
        staging: { domain: 'https://b.example.com', clientId: 'b' },
      },
    }),
  );
});

function shellEnv(): NodeJS.ProcessEnv {
  return { PATH: path, HOME: work, XDG_CONFIG_HOME: work, XDG_DATA_HOME: work, SVCADM_CONFIG_DIR: configDir };
}

const zsh = requireProgram('zsh');
const fish = requireProgram('fish');

/** What bash offers for `words`, the last one being completed. */
function bashComplete(...words: string[]): string[] {
  const script = `source ${join(work, FILES.bash)}; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _svcadm; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['-c', script, 'bash', ...words], { env: shellEnv(), encoding: 'utf8' });
  return out.split('\n').filter((l) => l !== '');
}

/** Stand-ins for zsh's completion builtins, printing what would be offered for the current PREFIX. */
const ZSH_HARNESS = `
_out() { local c; for c in "$@"; do [[ $c == \${PREFIX}* ]] && print -r -- "$IPREFIX$c"; done }
compadd() { local -a arr; arr=("\${(@P)\${@[-1]}}"); _out "\${arr[@]}" }
_describe() { local -a arr; arr=("\${(@P)\${@[-1]}}"); _out "\${arr[@]%%:*}" }
compset() {
  if [[ $1 == -P && $PREFIX == \${~2}* ]]; then
    local rest=\${PREFIX##\${~2}}; IPREFIX+=\${PREFIX%$rest}; PREFIX=$rest
  fi
}
_files() { print '<files>' }
_message() { }
_call_program() { shift; eval "$@" }
compdef() { }
source "$1"; shift
words=("$@"); CURRENT=\${#words}; PREFIX=\${words[CURRENT]}; IPREFIX=''
_svcadm
exit 0
`;

function zshComplete(...words: string[]): string[] {
  const out = execFileSync('zsh', ['-f', '-c', ZSH_HARNESS, 'zsh', join(work, FILES.zsh), ...words], {
    env: shellEnv(),
    encoding: 'utf8',
  });
  return out.split('\n').filter((l) => l !== '');
}

function fishComplete(line: string): string[] {
  const script = `source ${join(work, FILES.fish)}; complete -C ${JSON.stringify(line)}`;
  const out = execFileSync('fish', ['--no-config', '-c', script], { env: shellEnv(), encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t')[0] ?? '');
}

describe('svcadm completion', () => {
  it.each(Object.entries(FILES))('completions/%s is current', (shell, file) => {
    const committed = readFileSync(join(ROOT, 'completions', file), 'utf8');
    expect(committed === scripts[shell as Shell], `completions/${file} is stale: run \`npm run completions\``).toBe(
      true,
    );
  });

  it('rejects an unknown shell with exit 2', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("svcadm: the shell must be bash, zsh or fish, got 'tcsh' — see 'svcadm completion --help'\n");
  });

  it('lists profile names for the scripts, and nothing when there is no store', async () => {
    expect(await runCli(['__complete', 'profiles'], { env: { SVCADM_CONFIG_DIR: configDir } })).toEqual({
      code: 0,
      stdout: 'prod\nstaging\n',
      stderr: '',
    });
    expect(await runCli(['__complete', 'profiles'], { env: { SVCADM_CONFIG_DIR: join(work, 'none') } })).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('keeps __complete out of help and completions', async () => {
    expect((await runCli(['--help'])).stdout).not.toContain('__complete');
    expect(scripts.bash).not.toContain("'__complete:");
  });
});

describe('bash script', () => {
  it('completes groups, verbs and options', () => {
    expect(bashComplete('svcadm', 'po')).toEqual(['policies']);
    expect(bashComplete('svcadm', 'events', '')).toEqual(['tail', 'replay', 'help']);
    expect(bashComplete('svcadm', 'policies', 'get', 'x', '--out')).toEqual(['--output']);
    expect(bashComplete('svcadm', 'events', 'tail', '--cur')).toEqual(['--cursor-file']);
  });

  it('completes event types, also after a comma', () => {
    expect(bashComplete('svcadm', 'events', 'tail', '--type', 'user.')).toEqual([
      'user.created',
      'user.deleted',
      'user.updated',
    ]);
    expect(bashComplete('svcadm', 'events', 'tail', '--type', 'user.created,group.m')).toEqual([
      'user.created,group.member.added',
      'user.created,group.member.deleted',
    ]);
  });

  it('completes output formats, global options after the command and --opt=value', () => {
    expect(bashComplete('svcadm', '-o', '')).toEqual(['table', 'wide', 'json', 'yaml', 'ndjson', 'raw']);
    expect(bashComplete('svcadm', '--output', 'json', 'ev')).toEqual(['events']);
    expect(bashComplete('svcadm', 'events', 'tail', '--output', '=', 'nd')).toEqual(['ndjson']);
    expect(bashComplete('svcadm', 'events', 'tail', '--output=nd')).toEqual(['--output=ndjson']);
    expect(bashComplete('svcadm', 'users', 'find', '--no-h')).toEqual(['--no-headers']);
    expect(bashComplete('svcadm', 'events', 'tail', '--acc')).toEqual(['--accessible']);
  });

  it('completes profile names from the store, command names after help, and shells', () => {
    expect(bashComplete('svcadm', '--profile', '')).toEqual(['prod', 'staging']);
    expect(bashComplete('svcadm', '--profiles', '')).toEqual(['prod', 'staging']);
    expect(bashComplete('svcadm', 'profiles', 'use', 'st')).toEqual(['staging']);
    expect(bashComplete('svcadm', 'help', 'po')).toEqual(['policies']);
    expect(bashComplete('svcadm', 'help', 'policies', '')).toEqual(['list', 'get']);
    expect(bashComplete('svcadm', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(bashComplete('svcadm', 'policies', 'get', '')).toEqual([]);
  });

  it('completes api methods and the paths of the interface, by position', () => {
    expect(bashComplete('svcadm', 'api', 'P')).toEqual(['POST', 'PUT', 'PATCH']);
    expect(bashComplete('svcadm', 'api', '/u')).toEqual(['/users-by-email', '/users/{id}/permissions']);
    expect(bashComplete('svcadm', 'api', 'DELETE', '/c')).toEqual([
      '/connections',
      '/connections-directory-provisionings',
      '/connections/{id}/users',
    ]);
    expect(bashComplete('svcadm', 'api', 'GET', '/users/x/permissions', '')).toEqual([]);
    expect(bashComplete('svcadm', 'api', '-X', 'PA')).toEqual(['PATCH']);
    expect(bashComplete('svcadm', 'api', '-H', 'x', '--inp')).toEqual(['--input']);
  });
});

describe('zsh script', () => {
  it.skipIf(zsh.missing)(zsh.title('passes zsh -n'), () => {
    expect(spawnSync('zsh', ['-n', join(work, FILES.zsh)], { encoding: 'utf8' }).stderr).toBe('');
  });

  it.skipIf(zsh.missing)(zsh.title('completes commands, event types, formats and profiles'), () => {
    expect(zshComplete('svcadm', 'po')).toEqual(['policies']);
    expect(zshComplete('svcadm', 'events', 'tail', '--type', 'user.')).toEqual([
      'user.created',
      'user.deleted',
      'user.updated',
    ]);
    expect(zshComplete('svcadm', 'events', 'tail', '--type=user.created,user.d')).toEqual([
      '--type=user.created,user.deleted',
    ]);
    expect(zshComplete('svcadm', 'users', 'permissions', 'u1', '-o', '')).toEqual([
      'table',
      'wide',
      'json',
      'yaml',
      'ndjson',
      'raw',
    ]);
    expect(zshComplete('svcadm', '-p', '')).toEqual(['prod', 'staging']);
    expect(zshComplete('svcadm', 'help', 'events', '')).toEqual(['tail', 'replay']);
    expect(zshComplete('svcadm', 'api', 'PATCH', '/r')).toEqual(['/rate-limit-policies', '/rate-limit-policies/{id}']);
    expect(zshComplete('svcadm', 'api', 'D')).toEqual(['DELETE']);
  });
});

describe('fish script', () => {
  it.skipIf(fish.missing)(fish.title('passes fish --no-execute'), () => {
    expect(spawnSync('fish', ['--no-execute', join(work, FILES.fish)], { encoding: 'utf8' }).stderr).toBe('');
  });

  it.skipIf(fish.missing)(fish.title('completes commands, event types, formats and profiles'), () => {
    expect(fishComplete('svcadm po')).toEqual(['policies']);
    expect(fishComplete('svcadm events tail --type user.')).toEqual(['user.created', 'user.deleted', 'user.updated']);
    expect(fishComplete('svcadm events tail --type=user.created,user.d')).toEqual(['--type=user.created,user.deleted']);
    expect(fishComplete('svcadm -o ')).toEqual(['json', 'ndjson', 'raw', 'table', 'wide', 'yaml']);
    expect(fishComplete('svcadm profiles show ')).toEqual(['prod', 'staging']);
    expect(fishComplete('svcadm help policies ')).toEqual(['get', 'list']);
    expect(fishComplete('svcadm api PUT /r')).toEqual(['/rate-limit-policies', '/rate-limit-policies/{id}']);
    expect(fishComplete('svcadm api G')).toEqual(['GET']);
    expect(fishComplete('svcadm api -X DE')).toEqual(['DELETE']);
  });
});

describe('the README', () => {
  it.skipIf(zsh.missing)(
    zsh.title('gives a zsh line that works on a plain zsh (no framework, no compinit loaded)'),
    () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
      const lines = /\n# zsh \(~\/\.zshrc\)[^\n]*\n((?:[^#\n][^\n]*\n)+)/.exec(readme)?.[1];
      expect(lines).toBe('autoload -Uz compinit && compinit\nsource <(svcadm completion zsh)\n');
      // As a new ~/.zshrc would run them: zsh -f reads no startup file; then svcadm's completer is registered.
      const out = execFileSync('zsh', ['-f', '-c', `${lines}print -r -- $_comps[svcadm]`], {
        env: shellEnv(),
        encoding: 'utf8',
      });
      expect(out).toBe('_svcadm\n');
    },
  );
});
