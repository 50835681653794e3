import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSnapshotKind, recoverTenantFolder, writeTenantFolder } from '../../src/io/snapshot-folder.js';

// A tenant's snapshot folder: written beside the old one, swapped in by two renames, recovered from each state a
// swap cut short leaves.

const fresh = () => mkdtempSync(join(tmpdir(), 'svcadm-folder-'));
const POLICY = { consumer: 'client', consumer_selector: 'default', resource: 'oauth_authentication_api' };

function written(dir: string, selector = 'default'): Promise<string> {
  return writeTenantFolder(dir, 'dev', [
    { request: { kind: 'policies' }, content: { items: [{ ...POLICY, consumer_selector: selector }] } },
    { request: { kind: 'permissions', userId: 'db|u 1' }, content: { unavailable: 'insufficient_scope' } },
  ]);
}

describe('writeTenantFolder', async () => {
  it('writes the files, the id percent-encoded, and replaces the old folder whole', async () => {
    const dir = fresh();
    const folder = await written(dir);
    writeFileSync(join(folder, 'stale.yaml'), 'x');
    await written(dir, 'cimd_clients');
    expect(readdirSync(folder).sort()).toEqual(['permissions', 'policies.yaml']);
    expect(readdirSync(join(folder, 'permissions'))).toEqual(['db%7Cu%201.yaml']);
    expect(readFileSync(join(folder, 'policies.yaml'), 'utf8')).toBe(
      '- consumer: client\n  consumer_selector: cimd_clients\n  resource: oauth_authentication_api\n',
    );
    expect(readSnapshotKind(folder, { kind: 'permissions', userId: 'db|u 1' })).toEqual({
      unavailable: 'insufficient_scope',
    });
    expect(readdirSync(dir)).toEqual(['dev']);
  });
});

describe('recoverTenantFolder', async () => {
  it('cut between the renames (old aside, new complete, none in place): the new one moved in', async () => {
    const dir = fresh();
    await written(dir, 'new');
    renameSync(join(dir, 'dev'), join(dir, '.dev.new'));
    mkdirSync(join(dir, '.dev.old'));
    recoverTenantFolder(dir, 'dev');
    expect(readdirSync(dir)).toEqual(['dev']);
    expect(readFileSync(join(dir, 'dev', 'policies.yaml'), 'utf8')).toContain('consumer_selector: new');
  });

  it('cut while writing (a new folder beside the one in place): the one in place kept', async () => {
    const dir = fresh();
    await written(dir, 'kept');
    mkdirSync(join(dir, '.dev.new'));
    writeFileSync(join(dir, '.dev.new', 'policies.yaml'), '- half');
    recoverTenantFolder(dir, 'dev');
    expect(readdirSync(dir)).toEqual(['dev']);
    expect(readFileSync(join(dir, 'dev', 'policies.yaml'), 'utf8')).toContain('consumer_selector: kept');
  });

  it('cut after the swap (the old one still aside): the old one removed', async () => {
    const dir = fresh();
    await written(dir, 'current');
    cpSync(join(dir, 'dev'), join(dir, '.dev.old'), { recursive: true });
    recoverTenantFolder(dir, 'dev');
    expect(readdirSync(dir)).toEqual(['dev']);
  });

  it('the old one aside and nothing else: put back', async () => {
    const dir = fresh();
    await written(dir, 'back');
    renameSync(join(dir, 'dev'), join(dir, '.dev.old'));
    recoverTenantFolder(dir, 'dev');
    expect(existsSync(join(dir, 'dev', 'policies.yaml'))).toBe(true);
    expect(readdirSync(dir)).toEqual(['dev']);
  });
});

describe('readSnapshotKind', async () => {
  it('a file that is neither a list nor unavailable: exit 2 with what to do', async () => {
    const dir = fresh();
    const folder = await written(dir);
    writeFileSync(join(folder, 'policies.yaml'), 'hello: world\n');
    expect(() => readSnapshotKind(folder, { kind: 'policies' })).toThrow(
      `the snapshot ${join(folder, 'policies.yaml')} is neither a list of items nor "unavailable"`,
    );
  });
});
