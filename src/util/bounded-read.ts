import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { InStream } from '../context.js';
import { UsageError } from '../errors.js';
import { openRegularFile } from './regular-file.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of a file, or of stdin for `-`, refused (exit 2) when it is larger than `limit` bytes (it stops reading
 * there: a pipe that never ends is not held) or not UTF-8. `what` names it in messages (`--input`).
 */
export async function readTextBounded(source: string, stdin: InStream, limit: number, what: string): Promise<string> {
  const name = source === '-' ? 'stdin' : source;
  const stream: Readable = source === '-' ? stdin : createReadStream('', { fd: openInput(source, what) });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += buffer.length;
      if (size > limit) {
        throw new UsageError(
          `${what}: ${name} is larger than ${limit / (1024 * 1024)} MB, the most the service accepts`,
        );
      }
      chunks.push(buffer);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${what}: cannot read ${name}: ${(err as Error).message}`, undefined, 'file_unreadable');
  } finally {
    if (source !== '-') stream.destroy();
  }
  try {
    return UTF8.decode(Buffer.concat(chunks));
  } catch {
    throw new UsageError(`${what}: ${name} is not UTF-8 text`, undefined, 'file_unreadable');
  }
}

/**
 * A file to read, followed through symbolic links but refused (exit 2) unless it is a regular file: a FIFO would
 * block until a writer comes, and a device never ends. stdin (`-`) is the way to pipe data in.
 */
function openInput(path: string, what: string): number {
  let fd: number | undefined;
  try {
    fd = openRegularFile(path, { follow: true });
  } catch (err) {
    if (err instanceof UsageError) {
      throw new UsageError(`${what}: ${err.message}`, 'pipe it in with - (stdin) instead', 'file_unreadable');
    }
    throw new UsageError(`${what}: cannot read ${path}: ${(err as Error).message}`, undefined, 'file_unreadable');
  }
  if (fd === undefined)
    throw new UsageError(`${what}: cannot read ${path}: no such file`, undefined, 'file_unreadable');
  return fd;
}
