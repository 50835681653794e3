import { statSync } from 'node:fs';
import { isAccessToken } from '../domain/access-token.js';
import { tokenCacheFile } from './paths.js';
import { checkPrivatePath, ensurePrivateDir, isRecord, readJsonFile, writePrivateFile } from './private-file.js';

export interface CachedToken {
  accessToken: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  scope?: string;
  /** Which secret or key obtained the token (a one-way hash): a token is not reused once it changes. */
  secretCheck?: string;
}

/** Tokens are used until this long before they expire. */
export const EXPIRY_MARGIN_MS = 60_000;

export function tokenCacheKey(tokenUrl: string, clientId: string, audience: string): string {
  return `${tokenUrl} ${clientId} ${audience}`;
}

/**
 * The cache as last read, with the identity of the file it was read from (device, inode, size, modification time in
 * nanoseconds): a run across n tenants reads and checks it once, not n times (each read is the whole cache of every
 * tenant's token; 20 tenants spent 40 ms so, docs/bench-log.md 2026-11-26). Every write replaces the file (a new
 * inode), so a changed cache is always read again; the identity is taken before the read, so what is kept is never
 * older than it.
 */
let lastRead: { identity: string; tokens: Readonly<Record<string, CachedToken>> } | undefined;

function identityOf(file: string): string | undefined {
  try {
    const s = statSync(file, { bigint: true });
    return `${file}\0${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return undefined;
  }
}

function readAll(dir: string): Record<string, CachedToken> {
  // A cache others could write is refused, not ignored: it could hold their token for this client.
  checkPrivatePath(dir);
  checkPrivatePath(tokenCacheFile(dir));
  const identity = identityOf(tokenCacheFile(dir));
  if (identity !== undefined && lastRead?.identity === identity) return { ...lastRead.tokens };
  const tokens = parseAll(dir);
  lastRead = identity === undefined ? undefined : { identity, tokens: { ...tokens } };
  return tokens;
}

function parseAll(dir: string): Record<string, CachedToken> {
  let raw: unknown;
  try {
    raw = readJsonFile(tokenCacheFile(dir));
  } catch {
    return {}; // a damaged cache is only a cache: start afresh
  }
  if (!isRecord(raw)) return {};
  const tokens: Record<string, CachedToken> = {};
  for (const [key, value] of Object.entries(raw)) {
    // An entry written by an older svcadm may hold what is no token (a CR/LF) or no date: it is ignored.
    const { expiresAt } = isRecord(value) ? value : {};
    if (
      isRecord(value) &&
      isAccessToken(value.accessToken) &&
      typeof expiresAt === 'number' &&
      Math.abs(expiresAt) <= 8.64e15
    ) {
      tokens[key] = value as unknown as CachedToken;
    }
  }
  return tokens;
}

/** The cached token of `key`, if it is still fresh and was obtained with the secret that `check` stands for. */
export function readCachedToken(dir: string, key: string, check: string, now: number): CachedToken | undefined {
  const token = readAll(dir)[key];
  return token && token.secretCheck === check && token.expiresAt - EXPIRY_MARGIN_MS > now ? token : undefined;
}

/** Stores (or, with `undefined`, drops) the token of one key, pruning expired ones. */
export async function writeCachedToken(
  dir: string,
  key: string,
  token: CachedToken | undefined,
  now: number,
): Promise<void> {
  const tokens = readAll(dir);
  for (const [k, t] of Object.entries(tokens)) if (t.expiresAt <= now) delete tokens[k];
  if (token) tokens[key] = token;
  else delete tokens[key];
  ensurePrivateDir(dir);
  writePrivateFile(tokenCacheFile(dir), `${JSON.stringify(tokens, null, 2)}\n`);
}
