import { UsageError } from '../../errors.js';

export interface SnapshotRaw {
  dir?: string;
  user?: string[];
}

export interface SnapshotOptions {
  dir: string;
  /** The users whose permissions are kept, each once, in the order given. */
  users: string[];
}

/** A user id as `--user` takes it: 1 to 512 characters. */
export function userIdWord(value: string, flag: string): string {
  if (value.length === 0 || value.length > 512) {
    throw new UsageError(`${flag} needs a user id of 1 to 512 characters, got '${value.slice(0, 40)}'`);
  }
  return value;
}

export function parseSnapshotOptions(raw: SnapshotRaw): SnapshotOptions {
  if (raw.dir === undefined || raw.dir === '') throw new UsageError('snapshot needs --dir <folder>');
  const users = [...new Set((raw.user ?? []).map((u) => userIdWord(u, '--user')))];
  return { dir: raw.dir, users };
}
