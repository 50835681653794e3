import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

/** Reads a JSON file of ours; a missing file is `undefined`, a corrupt one a clear error. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${path} is not valid JSON`, 'repair or delete the file');
  }
}

/** Writes a file atomically (temporary file and rename) with mode 0600. */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const { writeFileSync } = await import('atomically');
  writeFileSync(path, text, { mode: 0o600 });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
