import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KindContent, KindRequest } from '../api/tenant-configuration.js';
import { type ConfigItem, configurationOf, sortedItems } from '../domain/tenant-configuration.js';
import { UsageError } from '../errors.js';
import { yamlDocument } from '../render/yaml-text.js';
import { openRegularFile, readOpenFile } from '../util/regular-file.js';

/**
 * A folder of snapshots: `<dir>/<profile>/`, one file per kind (cli.md, "Compare tenants"). Each tenant's folder is
 * written whole beside the old one (`.<profile>.new`), then swapped in by two renames (the old one to
 * `.<profile>.old`, the new one to its place); a swap cut short is finished, or undone, by the next run
 * (`recoverTenantFolder`). docs/decisions/2026-11-28-snapshot-folder-swap.md.
 */

/** The most a snapshot file may hold: 5,000 policies are about 1 MB. */
const SNAPSHOT_FILE_MAX = 64 * 1024 * 1024;

/** A kind's file in a tenant's folder: `policies.yaml`, or `permissions/<percent-encoded id>.yaml`. */
export function snapshotFileOf(request: KindRequest): string {
  if (request.kind !== 'permissions') return `${request.kind}.yaml`;
  return join('permissions', `${encodeURIComponent(request.userId ?? '')}.yaml`);
}

/** A kind's file as text: its items as a YAML list, or `unavailable: <code>`. Byte for byte the same for the same data. */
export function snapshotText(content: KindContent): string {
  return 'unavailable' in content ? yamlDocument({ unavailable: content.unavailable }) : yamlDocument(content.items);
}

function unwritable(path: string, err: unknown): UsageError {
  return new UsageError(`cannot write the snapshot ${path}: ${(err as Error).message}`, undefined, 'file_unwritable');
}

const newName = (profile: string) => `.${profile}.new`;
const oldName = (profile: string) => `.${profile}.old`;

/**
 * Finishes or undoes a swap cut short, from what it left: the new folder in place and the old one still there
 * (cut before the old was removed): the old removed; the old moved aside and the new not yet in place (cut between
 * the renames): the new moved in; a new folder beside a folder in place, or with nothing else (cut while writing):
 * the new removed, the folder in place kept.
 */
export function recoverTenantFolder(dir: string, profile: string): void {
  const current = join(dir, profile);
  const fresh = join(dir, newName(profile));
  const old = join(dir, oldName(profile));
  try {
    if (!existsSync(current) && existsSync(old)) {
      if (existsSync(fresh)) renameSync(fresh, current);
      else renameSync(old, current);
    }
    if (existsSync(old)) rmSync(old, { recursive: true, force: true });
    if (existsSync(fresh)) rmSync(fresh, { recursive: true, force: true });
  } catch (err) {
    throw unwritable(current, err);
  }
}

/** A file of the tenant's folder: its path there and what it holds. */
export interface SnapshotFile {
  readonly request: KindRequest;
  readonly content: KindContent;
}

/**
 * Writes a tenant's folder whole: beside the old one, then swapped in; the folder then holds exactly these files.
 * Returns the folder's path.
 */
export async function writeTenantFolder(dir: string, profile: string, files: readonly SnapshotFile[]): Promise<string> {
  const current = join(dir, profile);
  const fresh = join(dir, newName(profile));
  const old = join(dir, oldName(profile));
  try {
    mkdirSync(dir, { recursive: true });
    recoverTenantFolder(dir, profile);
    mkdirSync(fresh);
    if (files.some((file) => file.request.kind === 'permissions')) mkdirSync(join(fresh, 'permissions'));
    // Written and flushed in the thread pool: other tenants' answers are read meanwhile.
    await Promise.all(
      files.map((file) =>
        writeFile(join(fresh, snapshotFileOf(file.request)), snapshotText(file.content), { flush: true }),
      ),
    );
    if (existsSync(current)) renameSync(current, old);
    renameSync(fresh, current);
    rmSync(old, { recursive: true, force: true });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    rmSync(fresh, { recursive: true, force: true });
    throw unwritable(current, err);
  }
  return current;
}

/** Whether `side` names a snapshot folder rather than a profile: it holds a `/`, or names an existing folder. */
export function isSnapshotSide(side: string): boolean {
  if (side.includes('/')) return true;
  try {
    return statSync(side).isDirectory();
  } catch {
    return false;
  }
}

function malformed(path: string, why: string): UsageError {
  return new UsageError(`the snapshot ${path} ${why}`, 'write it again with svcadm snapshot', 'file_unreadable');
}

/** One kind of a snapshot folder, checked as a snapshot file is written (the allow-list applied again). */
export function readSnapshotKind(folder: string, request: KindRequest): KindContent {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new UsageError(`the snapshot folder ${folder} does not exist`, undefined, 'file_unreadable');
  }
  const path = join(folder, snapshotFileOf(request));
  if (!existsSync(path)) {
    const hint =
      request.kind === 'permissions'
        ? `svcadm snapshot --user ${request.userId ?? ''} writes it`
        : 'svcadm snapshot writes every kind';
    throw new UsageError(`the snapshot ${folder} has no ${snapshotFileOf(request)}`, hint, 'file_unreadable');
  }
  let value: unknown;
  try {
    // A regular file only (a FIFO would block the read), read to the bound and no further.
    const fd = openRegularFile(path, { follow: true, what: 'snapshot file' });
    if (fd === undefined) throw new Error('it is gone');
    const bytes = readOpenFile(fd, SNAPSHOT_FILE_MAX);
    if (bytes.length > SNAPSHOT_FILE_MAX) throw new Error(`larger than ${SNAPSHOT_FILE_MAX / 1024 / 1024} MB`);
    value = parse(bytes.toString('utf8'));
  } catch (err) {
    throw malformed(path, `cannot be read: ${(err as Error).message.split('\n')[0] ?? ''}`);
  }
  if (Array.isArray(value)) {
    const items: ConfigItem[] = value.map((item) => configurationOf(request.kind, item));
    return { items: sortedItems(request.kind, items) };
  }
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { unavailable?: unknown }).unavailable === 'string'
  ) {
    return { unavailable: (value as { unavailable: string }).unavailable };
  }
  throw malformed(path, 'is neither a list of items nor "unavailable"');
}
