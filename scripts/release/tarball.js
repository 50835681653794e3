// A reproducible .tar.gz: entries in the order given (the caller sorts them), one fixed time, owner and group 0
// without names, the modes given. Written here rather than by tar(1), whose options for this differ between GNU and
// BSD tar (docs/decisions/2026-11-28-release-packages.md).
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

const BLOCK = 512;
/** GNU tar's default record: the archive is padded to a whole number of them. */
const RECORD = 20 * BLOCK;

/** A field of octal digits, `width` bytes with its NUL. */
function octal(value, width) {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** The ustar header of one entry. */
function header({ name, mode, size, mtime, type }) {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar: the name ${name} is longer than 100 bytes`);
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0);
  block.write(octal(mode, 8), 100);
  block.write(octal(0, 8), 108); // uid
  block.write(octal(0, 8), 116); // gid
  block.write(octal(size, 12), 124);
  block.write(octal(mtime, 12), 136);
  block.write(' '.repeat(8), 148); // the checksum counts its own field as spaces
  block.write(type, 156);
  block.write('ustar\0', 257);
  block.write('00', 263);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

/**
 * Writes `outFile`, a gzipped tar of `entries`: `{ name, mode }` for a folder (its name ends with `/`), `{ name, mode,
 * source }` for a file copied from `source`. Every entry gets `mtime` (seconds).
 */
export async function writeTarball(outFile, entries, mtime) {
  async function* archive() {
    let written = 0;
    for (const entry of entries) {
      const folder = entry.name.endsWith('/');
      const size = folder ? 0 : (await stat(entry.source)).size;
      yield header({ name: entry.name, mode: entry.mode, size, mtime, type: folder ? '5' : '0' });
      written += BLOCK;
      if (folder) continue;
      for await (const chunk of createReadStream(entry.source)) yield chunk;
      const padding = (BLOCK - (size % BLOCK)) % BLOCK;
      if (padding) yield Buffer.alloc(padding);
      written += size + padding;
    }
    // Two empty blocks end the archive; then the rest of the record.
    written += 2 * BLOCK;
    yield Buffer.alloc(2 * BLOCK + ((RECORD - (written % RECORD)) % RECORD));
  }
  await pipeline(archive, createGzip({ level: 9 }), createWriteStream(outFile));
}
