import { generateKeyPairSync } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, withFileEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
withFileEmulator((each) => ({ emu } = each), { emulator: { eventRate: 0 } });

/** A raw request, so that `Host`, `Origin` and the content type are exactly what a browser or a rebinder sends. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emu.url}${path}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the Host header (DNS rebinding; issue 17 item 15)', () => {
  it('refuses a Host that is not the address it listens on, on every path', async () => {
    for (const path of ['/api/v2/connections', '/oauth/token', '/__emulator', '/.well-known/jwks.json']) {
      const answer = await raw('GET', path, { host: `rebind.attacker.example:${emu.port}` });
      expect(answer, path).toEqual({
        status: 421,
        json: {
          statusCode: 421,
          error: 'Misdirected Request',
          message: `Host rebind.attacker.example:${emu.port} is not this emulator's address; use ${emu.url}`,
          errorCode: 'host_not_allowed',
        },
      });
    }
    expect((await raw('GET', '/__emulator', { host: `127.0.0.1:${emu.port + 1}` })).status).toBe(421);
    expect((await raw('GET', '/__emulator', { host: '127.0.0.1' })).status).toBe(421);
  });

  it('accepts its own address and localhost with its port', async () => {
    expect((await raw('GET', '/__emulator', { host: `127.0.0.1:${emu.port}` })).status).toBe(200);
    expect((await raw('GET', '/__emulator', { host: `localhost:${emu.port}` })).status).toBe(200);
    expect((await raw('GET', '/__emulator', { host: `LocalHost:${emu.port}` })).status).toBe(200);
  });
});

describe('the control API refuses cross-site requests', () => {
  it('a text/plain POST with a foreign Origin changes nothing', async () => {
    await emu.failNext({ path: '/connections', status: 503 });
    const answer = await raw(
      'POST',
      '/__emulator/reset',
      { host: `127.0.0.1:${emu.port}`, origin: 'https://attacker.example', 'content-type': 'text/plain' },
      '{}',
    );
    expect(answer).toEqual({
      status: 403,
      json: {
        error: 'cross_site',
        message: 'the control API takes no requests from web pages (Origin https://attacker.example)',
      },
    });
    const faults = await raw('GET', '/__emulator/faults', { host: `127.0.0.1:${emu.port}` });
    expect((faults.json as { faults: unknown[] }).faults).toHaveLength(1);
  });

  it('a body that is not application/json is refused, whatever the Origin', async () => {
    const answer = await raw(
      'POST',
      '/__emulator/faults',
      { host: `127.0.0.1:${emu.port}`, 'content-type': 'text/plain' },
      JSON.stringify({ path: '/connections' }),
    );
    expect(answer).toEqual({
      status: 415,
      json: { error: 'unsupported_media_type', message: 'send the body as application/json' },
    });
    const sameSite = await raw('GET', '/__emulator', {
      host: `127.0.0.1:${emu.port}`,
      origin: 'null',
      'sec-fetch-site': 'cross-site',
    });
    expect(sameSite.status).toBe(403);
  });
});

describe('key registration is protected like the secret', () => {
  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });

  it('without the client secret no key is registered (no admin token without the admin secret)', async () => {
    const headers = { host: `127.0.0.1:${emu.port}`, 'content-type': 'application/json' };
    const anonymous = await raw(
      'POST',
      '/__emulator/client-keys',
      headers,
      JSON.stringify({ client: 'admin', publicKey: pem }),
    );
    expect(anonymous).toEqual({
      status: 403,
      json: { error: 'forbidden', message: "clientSecret must be the client's secret to register a key on it" },
    });
    const wrong = await raw(
      'POST',
      '/__emulator/client-keys',
      headers,
      JSON.stringify({ client: 'admin', publicKey: pem, clientSecret: emu.readOnly.clientSecret }),
    );
    expect(wrong.status).toBe(403);
    const right = await raw(
      'POST',
      '/__emulator/client-keys',
      headers,
      JSON.stringify({ client: 'admin', publicKey: pem, clientSecret: emu.admin.clientSecret }),
    );
    expect(right).toEqual({ status: 201, json: { clientId: emu.admin.clientId, keys: 1 } });
  });
});

describe('the default admin secret', () => {
  it('is random on every start, even with the same seed; a chosen one is kept', async () => {
    const [a, b, chosen] = await Promise.all([
      startTestEmulator({ seed: 5, eventRate: 0 }),
      startTestEmulator({ seed: 5, eventRate: 0 }),
      startTestEmulator({ seed: 5, eventRate: 0, clientSecret: 'kept-secret' }),
    ]);
    try {
      expect(a.admin.clientId).toBe(b.admin.clientId);
      expect(a.admin.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(a.admin.clientSecret).not.toBe(b.admin.clientSecret);
      expect(a.readOnly.clientSecret).not.toBe(b.readOnly.clientSecret);
      expect(chosen.admin.clientSecret).toBe('kept-secret');
      await expect(a.token()).resolves.toMatch(/^ey/);
    } finally {
      await Promise.all([a.close(), b.close(), chosen.close()]);
    }
  });
});
