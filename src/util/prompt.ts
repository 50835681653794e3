import type { Io } from '../context.js';
import { Interrupted } from '../errors.js';

/** Reads a secret without echoing it (raw mode), for a terminal. */
export function askHidden(io: Io, question: string): Promise<string> {
  const { stdin, stderr } = io;
  stderr.write(question);
  stdin.setRawMode?.(true);
  stdin.resume();
  return new Promise<string>((resolve, reject) => {
    let value = '';
    const finish = (err?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003' || ch === '\u0004') return finish(new Interrupted());
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** Reads all of stdin (for --client-secret-stdin), as it is. */
export async function readAllStdin(io: Io): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
