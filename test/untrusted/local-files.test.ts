import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenLockFile } from '../../src/config/token-lock.js';
import { answerJson, CLIENT_ID, hostileServerPerTest, sse, sseMessage } from '../helpers/hostile-server.js';
import {
  FULL_TMPFS,
  needsMountNamespace,
  READ_ONLY_TMPFS,
  runBinLimited,
  runInMountNamespace,
  skipWithoutMountNamespace,
} from '../helpers/mount-namespace.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

const policy = answerJson(200, { id: 'rlp_1', resource: 'oauth_authentication_api', consumer: 'client' });
const POLICY_JSON = '{\n  "id": "rlp_1",\n  "resource": "oauth_authentication_api",\n  "consumer": "client"\n}\n';
const isRoot = process.getuid?.() === 0;
const needsRoot = isRoot ? '' : ' (skipped: needs root for mknod)';
const skipWithoutRoot = !isRoot && process.env.SVCADM_TEST_REQUIRE_ALL !== '1';

/** A character device like /dev/null (1,3), made in a temporary folder. */
function nullDevice(): string {
  const path = join(tempConfigDir(), 'null');
  execFileSync('mknod', [path, 'c', '1', '3']);
  return path;
}

function fifo(): string {
  const path = join(tempConfigDir(), 'fifo');
  execFileSync('mkfifo', [path]);
  return path;
}

const oneEvent = () => sse(sseMessage('c1', 'user.created', '{"offset":"c1"}'), { keepOpen: true });

describe('a cursor file that is not a regular file', () => {
  it.skipIf(skipWithoutRoot)(`a character device is refused and stays a device${needsRoot}`, async () => {
    const device = nullDevice();
    const server = await hostile({ api: oneEvent() });
    const r = await runCli(['events', 'tail', '--cursor-file', device, '--max-events', '1'], { env: server.env() });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to read the cursor file ${device}: it is a character device, not a regular file\n`,
    });
    expect(lstatSync(device).isCharacterDevice()).toBe(true);
    expect(server.requests).toEqual([]);
  });

  it('a FIFO is refused at once, not waited on where no signal reaches', async () => {
    const path = fifo();
    const server = await hostile({ api: oneEvent() });
    const r = await runBinLimited(['events', 'tail', '--cursor-file', path, '--max-events', '1'], server.env());
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to read the cursor file ${path}: it is a FIFO (named pipe), not a regular file\n`,
    });
    expect(lstatSync(path).isFIFO()).toBe(true);
    expect(server.requests).toEqual([]);
  });

  it('a symlink to /dev/stdout is neither followed nor replaced', async () => {
    const link = join(tempConfigDir(), 'cursor');
    symlinkSync('/dev/stdout', link);
    const server = await hostile({ api: oneEvent() });
    const r = await runCli(['events', 'tail', '--cursor-file', link, '--max-events', '1'], { env: server.env() });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to read the cursor file ${link}: it is a symbolic link, which svcadm never follows nor replaces — give the path of the file itself\n`,
    });
    expect(readlinkSync(link)).toBe('/dev/stdout');
    expect(server.requests).toEqual([]);
  });

  it('a folder in place of the cursor file is refused before anything is sent', async () => {
    const dir = tempConfigDir();
    const cursor = join(dir, 'cursor');
    mkdirSync(cursor); // a folder where the file would go: the check before streaming sees it
    const server = await hostile({ api: oneEvent() });
    const r = await runCli(['events', 'tail', '--cursor-file', cursor, '--max-events', '1'], { env: server.env() });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to read the cursor file ${cursor}: it is a folder, not a regular file\n`,
    });
    expect(lstatSync(cursor).isDirectory()).toBe(true);
  });

  it.skipIf(skipWithoutMountNamespace)(
    `a full disk under the cursor file is exit 74 with the resume line${needsMountNamespace}`,
    async () => {
      const dir = tempConfigDir();
      const cursor = join(dir, 'cursor');
      const server = await hostile({ api: oneEvent() });
      const r = await runInMountNamespace(
        dir,
        FULL_TMPFS,
        ['events', 'tail', '--cursor-file', cursor, '--max-events', '1'],
        server.env(),
        'ls -A "$d"',
      );
      expect(r.stdout).toBe('{"type":"user.created","offset":"c1"}\n');
      expect(r.stderr).toBe(
        [
          'svcadm: stopped after 1 event',
          `resume with: svcadm --domain ${server.url} events tail --from c1 --cursor-file ${cursor}`,
          `svcadm: cannot write the cursor file ${cursor}: ENOSPC: no space left on device, write — free space or fix the cursor file, then resume with the line above`,
          '--after--',
          '.fill',
          '',
        ].join('\n'),
      );
      expect(r.code).toBe(74);
    },
  );
});

describe('svcadm api --input that is not a regular file', () => {
  it('a FIFO is refused at once; stdin stays the way to pipe a body in', async () => {
    const path = fifo();
    const server = await hostile({ api: policy });
    const r = await runBinLimited(['api', 'POST', '/roles', '--input', path, '--yes'], server.env());
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: --input: refusing to read ${path}: it is a FIFO (named pipe), not a regular file — pipe it in with - (stdin) instead\n`,
    });
    expect(server.requests).toEqual([]);
  });

  it.skipIf(skipWithoutRoot)(`a character device is refused${needsRoot}`, async () => {
    const device = nullDevice();
    const server = await hostile({ api: policy });
    const r = await runCli(['api', 'POST', '/roles', '--input', device, '--yes'], { env: server.env() });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: --input: refusing to read ${device}: it is a character device, not a regular file — pipe it in with - (stdin) instead\n`,
    });
    expect(lstatSync(device).isCharacterDevice()).toBe(true);
  });
});

describe('the files svcadm keeps in its config folder', () => {
  it.skipIf(skipWithoutRoot)(`a device in place of the token cache is left alone${needsRoot}`, async () => {
    const dir = tempConfigDir();
    execFileSync('mknod', [join(dir, 'token-cache.json'), 'c', '1', '3']);
    const server = await hostile({ api: policy });
    const r = await runCli(['policies', 'get', 'rlp_1', '-o', 'json'], { env: server.env({ SVCADM_CONFIG_DIR: dir }) });
    expect(r).toEqual({ code: 0, stdout: POLICY_JSON, stderr: '' });
    expect(lstatSync(join(dir, 'token-cache.json')).isCharacterDevice()).toBe(true);
  });

  it('a FIFO in place of the profile store is refused without blocking', async () => {
    const dir = tempConfigDir();
    execFileSync('mkfifo', [join(dir, 'profiles.json')]);
    const r = await runBinLimited(['profiles', 'list'], { SVCADM_CONFIG_DIR: dir });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to read ${join(dir, 'profiles.json')}: it is a FIFO (named pipe), not a regular file\n`,
    });
  });

  it('a symlinked profile store is neither written through nor replaced', async () => {
    const dir = tempConfigDir();
    const victim = join(tempConfigDir(), 'victim');
    writeFileSync(victim, '{"profiles":{}}\n');
    const store = join(dir, 'profiles.json');
    symlinkSync(victim, store);
    const r = await runCli(
      [
        'profiles',
        'add',
        'p1',
        '--domain',
        'https://t.example.com',
        '--client-id',
        'c',
        '--client-secret-stdin',
        '--no-verify',
      ],
      { env: { SVCADM_CONFIG_DIR: dir }, stdin: 'a-long-secret\n' },
    );
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to read ${store}: it is a symbolic link, which svcadm never follows nor replaces — give the path of the file itself\n`,
    });
    expect(readFileSync(victim, 'utf8')).toBe('{"profiles":{}}\n');
    expect(readlinkSync(store)).toBe(victim);
  });

  it('a symlinked token cache is neither written through nor replaced: the command works without the cache', async () => {
    const dir = tempConfigDir();
    const victim = join(tempConfigDir(), 'victim');
    writeFileSync(victim, 'keep me\n');
    const cache = join(dir, 'token-cache.json');
    symlinkSync(victim, cache);
    const server = await hostile({ api: policy });
    const r = await runCli(['policies', 'get', 'rlp_1', '-o', 'json'], { env: server.env({ SVCADM_CONFIG_DIR: dir }) });
    expect(r).toEqual({ code: 0, stdout: POLICY_JSON, stderr: '' });
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(readlinkSync(cache)).toBe(victim);
  });

  it('a symlinked cursor file is refused before anything is sent', async () => {
    const dir = tempConfigDir();
    const victim = join(tempConfigDir(), 'victim');
    writeFileSync(victim, 'c0\n');
    const cursor = join(dir, 'cursor');
    symlinkSync(victim, cursor);
    const server = await hostile({ api: oneEvent() });
    const r = await runCli(['events', 'tail', '--cursor-file', cursor, '--max-events', '1'], { env: server.env() });
    expect(r.code).toBe(2);
    expect(readFileSync(victim, 'utf8')).toBe('c0\n');
    expect(readlinkSync(cursor)).toBe(victim);
    expect(server.requests).toEqual([]);
  });
});

describe('a read-only or full config folder', () => {
  it.skipIf(skipWithoutMountNamespace)(
    `a read-only folder: the command works without the token lock and cache, said under --debug${needsMountNamespace}`,
    async () => {
      const dir = tempConfigDir();
      const server = await hostile({ api: policy });
      const r = await runInMountNamespace(
        dir,
        READ_ONLY_TMPFS,
        ['policies', 'get', 'rlp_1', '-o', 'json', '--debug'],
        server.env({ SVCADM_CONFIG_DIR: dir }),
      );
      expect(r.stdout).toBe(POLICY_JSON);
      const lines = r.stderr.split('\n');
      expect(lines).toContain(
        `svcadm: debug: cannot take the token lock (EROFS: read-only file system, open '${join(dir, tokenLockFile(`${server.url}/oauth/token ${CLIENT_ID} ${server.url}/api/v2/`))}'): asking for a token without it`,
      );
      expect(lines.filter((line) => line.includes('could not write the token cache'))).toEqual([
        expect.stringMatching(
          new RegExp(
            `^svcadm: debug: could not write the token cache: EROFS: read-only file system, open '${dir}/\\.token-cache\\.json\\.\\d+-[0-9a-f]{8}\\.tmp'$`,
          ),
        ),
      ]);
      expect(r.stderr).not.toContain('this is a bug');
      expect(r.code).toBe(0);
      expect(server.tokenRequests()).toHaveLength(1);
    },
  );

  it.skipIf(skipWithoutMountNamespace)(
    `a full folder: the command works, and no empty lock is left for the next runs to wait on${needsMountNamespace}`,
    async () => {
      const dir = tempConfigDir();
      const server = await hostile({ api: policy });
      const r = await runInMountNamespace(
        dir,
        FULL_TMPFS,
        ['policies', 'get', 'rlp_1', '-o', 'json'],
        server.env({ SVCADM_CONFIG_DIR: dir }),
        'ls -A "$d"',
      );
      expect(r).toEqual({ code: 0, stdout: POLICY_JSON, stderr: '--after--\n.fill\n' });
    },
  );

  it.skipIf(skipWithoutMountNamespace)(
    `a read-only folder makes profiles add fail with one line, not "a bug"${needsMountNamespace}`,
    async () => {
      const dir = tempConfigDir();
      const r = await runInMountNamespace(
        dir,
        READ_ONLY_TMPFS,
        [
          'profiles',
          'add',
          'p1',
          '--domain',
          'https://t.example.com',
          '--client-id',
          'c',
          '--client-secret',
          's',
          '--no-verify',
        ],
        { SVCADM_CONFIG_DIR: dir },
      );
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: [
          'svcadm: warning: --client-secret leaks into shell history and the process list; prefer --client-secret-stdin',
          `svcadm: warning: no usable OS keyring (no Secret Service: DBUS_SESSION_BUS_ADDRESS is not set): the client secret is stored in ${join(dir, 'profiles.json')} (mode 0600)`,
          `svcadm: cannot write the profile store ${join(dir, 'profiles.json')}: EROFS: read-only file system, open '${join(dir, 'profiles.json.lock')}'`,
          '',
        ].join('\n'),
      });
    },
  );
});

describe('readOpenFile: a bounded read sized by the file', () => {
  it('reads the whole of a file up to the bound, and one byte more of a longer one', async () => {
    const { openRegularFile, readOpenFile } = await import('../../src/util/regular-file.js');
    const dir = tempConfigDir();
    const read = (bytes: number, limit: number) => {
      const path = join(dir, `f${bytes}-${limit}`);
      writeFileSync(path, Buffer.alloc(bytes, 0x61));
      const fd = openRegularFile(path);
      if (fd === undefined) throw new Error('no file');
      const got = readOpenFile(fd, limit);
      expect(got.every((b) => b === 0x61)).toBe(true);
      return got.length;
    };
    expect([read(0, 16), read(5, 16), read(16, 16), read(17, 16), read(5000, 16)]).toEqual([0, 5, 16, 17, 17]);
    expect(read(300_000, 4 * 1024 * 1024)).toBe(300_000);
  });
});
