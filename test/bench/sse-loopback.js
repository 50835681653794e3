// A Server-Sent Events server that is never the bottleneck: it captures the emulator's event stream once, then
// answers every `GET` with those same bytes, written as fast as the client reads. The emulator generates events
// at about 25,000/s, slower than both svcadm and `curl | grep` can read: measured against it, both only measure it.
import './clean-env.js';
import http from 'node:http';
import net from 'node:net';
import { startEmulator } from '../../dist/emulator/server.js';
import { token } from './emulator-throughput.js';

const SLICE = 1024 * 1024;

/** The first `count` messages of the emulator's stream from the start of its history, as the bytes it sent. */
async function capture(count) {
  const emu = await startEmulator({
    events: count + 1000,
    eventRate: 0,
    rateLimit: 0,
    heartbeatMs: 0,
    streamLifetimeMs: 0,
  });
  try {
    const accessToken = await token(emu);
    return await new Promise((resolve, reject) => {
      const chunks = [];
      let seen = 0;
      const req = http.get(
        `${emu.url}/api/v2/events?from_timestamp=2000-01-01T00:00:00Z`,
        { agent: false, headers: { authorization: `Bearer ${accessToken}` } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`the emulator's stream answered ${res.statusCode}`));
          res.on('data', (chunk) => {
            chunks.push(chunk);
            for (let at = chunk.indexOf('\nevent: '); at !== -1; at = chunk.indexOf('\nevent: ', at + 8)) seen++;
            if (seen < count + 10) return;
            req.destroy();
            // Cut after the end of message number `count` (the stream opens with `:connected` and `retry:`).
            const all = Buffer.concat(chunks);
            let end = 0;
            for (let n = 0; n <= count; n++) end = all.indexOf('\n\n', end) + 2;
            resolve(all.subarray(0, end));
          });
        },
      );
      req.on('error', (err) => {
        if (seen < count + 10) reject(err);
      });
    });
  } finally {
    await emu.close();
  }
}

/**
 * The whole HTTP answer, chunked with one chunk per SSE message, as the emulator and many servers send a live
 * stream (a client's socket read then holds dozens of chunks): framed once here, so serving it costs nothing.
 */
function chunkedPerMessage(body) {
  const parts = [
    Buffer.from(
      'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n',
    ),
  ];
  for (let at = 0; at < body.length; ) {
    const end = body.indexOf('\n\n', at) + 2;
    parts.push(Buffer.from(`${(end - at).toString(16)}\r\n`), body.subarray(at, end), Buffer.from('\r\n'));
    at = end;
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** Writes `bytes` to `out` as fast as it is read, in slices; `stop()` ends it early. */
function pump(out, bytes, end) {
  let at = 0;
  const next = () => {
    while (at < bytes.length) {
      const ok = out.write(bytes.subarray(at, at + SLICE));
      at += SLICE;
      if (!ok) return void out.once('drain', next);
    }
    end();
  };
  next();
  return () => {
    at = bytes.length;
  };
}

/**
 * The same `count` events one HTTP chunk per message (see `chunkedPerMessage`), from a plain TCP server on
 * 127.0.0.1:0 that answers every request with those bytes. `body` reuses a capture of `startFastStream`.
 */
export async function startChunkPerMessageStream(body) {
  const answer = chunkedPerMessage(body);
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      const stop = pump(socket, answer, () => socket.end());
      socket.on('close', stop);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    bytes: body.length,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Starts the server on 127.0.0.1:0 with `count` events; `url` is its origin (any token is accepted). */
export async function startFastStream(count) {
  return serveFast(await capture(count));
}

/**
 * The same events, each message also carrying `retry:` (as some servers send every time): a field the fast path
 * leaves to the parser, so every message takes the parser's way.
 */
export function startRetryEveryMessageStream(body) {
  const messages = body.toString('utf8').split('\n\n').slice(0, -1);
  return serveFast(Buffer.from(messages.map((m) => `retry: 3000\n${m}\n\n`).join('')));
}

/** Answers every `GET` with `body`, as fast as the client reads. */
async function serveFast(body) {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.on(
      'close',
      pump(res, body, () => res.end()),
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    bytes: body.length,
    body,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
