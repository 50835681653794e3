import { PassThrough, type Readable, type Writable } from 'node:stream';

/** JSON-RPC 2.0's codes for what never reaches a handler. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * Stands between stdin and the SDK's stdio transport, which drops a line it cannot parse in silence and closes the
 * whole connection on a line over its buffer. Every line that is not one JSON-RPC message gets a JSON-RPC error on
 * stdout instead, and the server goes on: a line over `maxBytes` (never held whole: the rest is skipped as it comes),
 * text that is not JSON, a batch (an array: MCP has none since 2025-06-18), an object that is not JSON-RPC.
 */
export function guardedInput(stdin: Readable, stdout: Writable, maxBytes: number): PassThrough {
  const out = new PassThrough();
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;

  const refuse = (id: unknown, code: number, message: string) => {
    const answer = {
      jsonrpc: '2.0',
      id: typeof id === 'string' || typeof id === 'number' ? id : null,
      error: { code, message },
    };
    stdout.write(`${JSON.stringify(answer)}\n`);
  };

  const line = (bytes: Buffer) => {
    const text = bytes.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      refuse(null, PARSE_ERROR, 'Parse error: the line is not JSON');
      return;
    }
    if (Array.isArray(message)) {
      refuse(null, INVALID_REQUEST, 'Invalid Request: batches are not supported; send each message on its own line');
      return;
    }
    const problem = notJsonRpc(message);
    if (problem !== undefined) {
      refuse((message as { id?: unknown } | null)?.id, INVALID_REQUEST, `Invalid Request: ${problem}`);
      return;
    }
    out.write(Buffer.concat([bytes, Buffer.from('\n')]));
  };

  stdin.on('data', (chunk: Buffer) => {
    let rest = chunk;
    for (let nl = rest.indexOf(0x0a); nl >= 0; nl = rest.indexOf(0x0a)) {
      const head = rest.subarray(0, nl);
      rest = rest.subarray(nl + 1);
      if (skipping || pendingBytes + head.length > maxBytes) {
        refuse(null, INVALID_REQUEST, `Invalid Request: a message over ${maxBytes / (1024 * 1024)} MB was skipped`);
        skipping = false;
      } else {
        line(Buffer.concat([...pending, head]));
      }
      pending = [];
      pendingBytes = 0;
    }
    if (rest.length === 0 || skipping) return;
    if (pendingBytes + rest.length > maxBytes) {
      // Not held: the rest of this line is dropped as it arrives, and refused at its end.
      skipping = true;
      pending = [];
      pendingBytes = 0;
      return;
    }
    pending.push(rest);
    pendingBytes += rest.length;
  });
  stdin.once('end', () => out.end());
  stdin.once('close', () => out.end());
  stdin.on('error', (err) => out.destroy(err));
  return out;
}

/** Why `message` is not a JSON-RPC 2.0 request, notification or response; undefined when it is one. */
function notJsonRpc(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return 'a message is a JSON object';
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if ('method' in m) {
    if (typeof m.method !== 'string') return 'method must be a string';
    if ('params' in m && (typeof m.params !== 'object' || m.params === null)) return 'params must be an object';
    if ('id' in m && typeof m.id !== 'string' && typeof m.id !== 'number') return 'id must be a string or a number';
    return undefined;
  }
  if ('id' in m && ('result' in m || 'error' in m)) return undefined;
  return 'neither a request (method) nor a response (result or error)';
}
