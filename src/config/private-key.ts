import { readFileSync, statSync } from 'node:fs';
import { UsageError } from '../errors.js';

const MAX_KEY_BYTES = 64 * 1024;

/**
 * Reads a client's private key (PEM). Like ssh, it refuses a key that others can read: it stands for the client as
 * a secret does. The path is what profiles store; the key never leaves this file.
 */
export function readPrivateKey(path: string): string {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch (err) {
    throw new UsageError(
      `cannot read the private key ${path}: ${(err as Error).message}`,
      undefined,
      'file_unreadable',
    );
  }
  if (!stats.isFile()) throw new UsageError(`the private key ${path} is not a file`, undefined, 'file_unreadable');
  if (process.platform !== 'win32' && (stats.mode & 0o077) !== 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
    throw new UsageError(
      `the private key ${path} can be read by others (mode ${mode})`,
      `make it private: chmod 600 '${path.replace(/'/g, `'\\''`)}'`,
      'file_unreadable',
    );
  }
  if (stats.size > MAX_KEY_BYTES)
    throw new UsageError(`the private key ${path} is larger than 64 KB: not a key`, undefined, 'file_unreadable');
  const pem = readFileSync(path, 'utf8');
  if (!/-----BEGIN (?:RSA |ENCRYPTED )?PRIVATE KEY-----/.test(pem)) {
    throw new UsageError(
      `the private key ${path} is not a PEM private key`,
      'give an RSA key in PKCS#8 or PKCS#1 PEM',
      'file_unreadable',
    );
  }
  return pem;
}
