import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/version.js';
import { emulatorEnv, emulatorPerTest, type TestEmulator } from '../helpers/emulator.js';
import { loopbackPerTest, refusedPort } from '../helpers/loopback-server.js';
import { otlpReceiverPerTest, type ReceivedSpan, type Value } from '../helpers/otlp-receiver.js';
import { configWithProfiles, runCli } from '../helpers/run-cli.js';
import { connectMcp } from '../mcp/helpers.js';

// Traces against a local OTLP/HTTP collector (test/helpers/otlp-receiver.ts): every case of issue 41 point 5, each
// span compared whole — its name, its parent's name, its attributes — with the resource and the trace it belongs to.
const startEmulator = emulatorPerTest();
const collector = otlpReceiverPerTest();
// Registered after the emulator's: the receivers are closed first.
const loopback = loopbackPerTest();

const RESOURCE = { 'service.name': 'svcadm', 'service.version': packageVersion() };

/** A span as the tests compare it: name, its parent's name (`-` for a root), attributes, events, error status. */
interface Shape {
  name: string;
  parent: string;
  attributes: Record<string, Value>;
  events?: string[];
  error?: true;
}

/** The spans of one run, parents named, in the order they ended; every span of the run in one trace. */
function shapes(spans: readonly ReceivedSpan[]): Shape[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
  for (const s of spans) {
    expect(s.resource).toEqual(RESOURCE);
    // Errors by code only: never a status message.
    expect(s.status.message).toBe('');
  }
  return spans.map((s) => {
    const shape: Shape = {
      name: s.name,
      parent: s.parentSpanId === '' ? '-' : (byId.get(s.parentSpanId)?.name ?? `(outside: ${s.parentSpanId})`),
      attributes: s.attributes,
    };
    if (s.events.length > 0) shape.events = s.events.map((e) => e.name);
    if (s.status.code === 2) shape.error = true;
    return shape;
  });
}

function traced(e: TestEmulator, endpoint: string, extra: Record<string, string> = {}): Record<string, string> {
  return emulatorEnv(e, { NO_COLOR: '1', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, ...extra });
}

describe('traces (OTEL_* variables)', () => {
  it('policies get: the command, the token fetched then from the cache, the request by its route template', async () => {
    const e = await startEmulator();
    const c = await collector();
    const env = traced(e, c.endpoint);
    const id = e.fixtures.policyIds[0] as string;
    const r = await runCli(['policies', 'get', id, '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(c.posts).toEqual([{ url: '/v1/traces', contentType: 'application/x-protobuf' }]);
    expect(shapes(c.spans)).toEqual([
      {
        name: 'POST /oauth/token',
        parent: 'svcadm token',
        attributes: { 'http.request.method': 'POST', 'url.template': '/oauth/token', 'http.response.status_code': 200 },
      },
      { name: 'svcadm token', parent: 'svcadm policies get', attributes: { 'svcadm.token.source': 'fetched' } },
      {
        name: 'GET /api/v2/rate-limit-policies/{id}',
        parent: 'svcadm policies get',
        attributes: {
          'http.request.method': 'GET',
          'url.template': '/api/v2/rate-limit-policies/{id}',
          'http.response.status_code': 200,
        },
      },
      { name: 'svcadm policies get', parent: '-', attributes: { 'process.exit.code': 0 } },
    ]);
    // Never the id, the secret, the token or the tenant's URL.
    const text = JSON.stringify(c.spans.map(({ headers, ...s }) => s));
    for (const never of [id, e.admin.clientSecret, e.admin.clientId, e.url, 'url.full'])
      expect(text).not.toContain(never);
    c.spans.length = 0;
    const again = await runCli(['policies', 'get', id, '-o', 'json', '--debug'], { env });
    expect(again.code).toBe(0);
    expect(shapes(c.spans).slice(0, 1)).toEqual([
      { name: 'svcadm token', parent: 'svcadm policies get', attributes: { 'svcadm.token.source': 'cache' } },
    ]);
    // --debug has nothing to say of an export that went through.
    expect(again.stderr).not.toContain('traces:');
  });

  it('users permissions --all with a retry after a 429: one span per attempt, the resend counted, the wait said', async () => {
    const e = await startEmulator();
    const c = await collector();
    const env = traced(e, c.endpoint, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect((await runCli(['auth', 'token'], { env })).code).toBe(0);
    c.spans.length = 0;
    await e.rateLimitNext('/users', 1, 0);
    const r = await runCli(['users', 'permissions', e.fixtures.userId, '--all', '-o', 'ndjson'], { env });
    expect(r.code, r.stderr).toBe(0);
    const all = shapes(c.spans);
    const attempts = all.filter((s) => s.name.startsWith('GET '));
    const template = '/api/v2/users/{id}/permissions';
    expect(attempts[0]).toEqual({
      name: `GET ${template}`,
      parent: 'svcadm users permissions',
      attributes: {
        'http.request.method': 'GET',
        'url.template': template,
        'http.response.status_code': 429,
        'error.type': '429',
        'svcadm.retry.wait_ms': expect.any(Number),
      },
      error: true,
    });
    expect(attempts[1]).toEqual({
      name: `GET ${template}`,
      parent: 'svcadm users permissions',
      attributes: {
        'http.request.method': 'GET',
        'url.template': template,
        'http.response.status_code': 200,
        'http.request.resend_count': 1,
      },
    });
    for (const page of attempts.slice(2)) expect(page.attributes['url.template']).toBe(template);
    expect(all.at(-1)).toEqual({
      name: 'svcadm users permissions',
      parent: '-',
      attributes: { 'process.exit.code': 0 },
    });
    expect(all.filter((s) => s.name === 'svcadm token')).toEqual([
      { name: 'svcadm token', parent: 'svcadm users permissions', attributes: { 'svcadm.token.source': 'cache' } },
    ]);
    expect(c.posts.every((p) => p.contentType === 'application/json')).toBe(true);
    expect(JSON.stringify(c.spans)).not.toContain(e.fixtures.userId);
  });

  it('a --profiles run with one tenant down: a span per tenant, the one down failed by its code', async () => {
    const e = await startEmulator();
    const c = await collector();
    const port = await refusedPort();
    const dir = configWithProfiles({
      dev: { domain: e.url, ...e.admin },
      prod: { domain: `http://127.0.0.1:${port}`, ...e.admin },
    });
    const id = e.fixtures.policyIds[0] as string;
    const r = await runCli(['--profiles', 'dev,prod', 'policies', 'get', id, '-o', 'json', '--max-retries', '0'], {
      env: { SVCADM_CONFIG_DIR: dir, NO_COLOR: '1', OTEL_EXPORTER_OTLP_ENDPOINT: c.endpoint },
    });
    expect(r.code).toBe(9);
    const all = shapes(c.spans);
    const tenants = all.filter((s) => s.name === 'svcadm tenant');
    expect(
      tenants.sort((a, b) =>
        String(a.attributes['svcadm.profile']).localeCompare(String(b.attributes['svcadm.profile'])),
      ),
    ).toEqual([
      {
        name: 'svcadm tenant',
        parent: 'svcadm policies get',
        attributes: { 'svcadm.profile': 'dev', 'svcadm.tenant.outcome': 'succeeded' },
      },
      {
        name: 'svcadm tenant',
        parent: 'svcadm policies get',
        attributes: { 'svcadm.profile': 'prod', 'svcadm.tenant.outcome': 'failed', 'error.type': 'network' },
        error: true,
      },
    ]);
    // Each tenant's requests are its children.
    expect(all.filter((s) => s.name.startsWith('POST ') || s.name.startsWith('GET ')).map((s) => s.parent)).toEqual(
      expect.arrayContaining(['svcadm token']),
    );
    expect(all.filter((s) => s.name === 'svcadm token').map((s) => s.parent)).toEqual([
      'svcadm tenant',
      'svcadm tenant',
    ]);
    expect(all.at(-1)).toMatchObject({ name: 'svcadm policies get', parent: '-', error: true });
    expect(all.at(-1)?.attributes['process.exit.code']).toBe(9);
  });

  it('events tail --forward-to: the stream, each forwarded event, and the app sees traceparent with the trace id', async () => {
    const e = await startEmulator({ events: 50, eventRate: 0, heartbeatMs: 0, streamRetryMs: 5 });
    const c = await collector();
    const app = await loopback([(_req, res: ServerResponse) => res.writeHead(204).end()]);
    const env = traced(e, c.endpoint, { SVCADM_FORWARD_SECRET: 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3' });
    const r = await runCli(
      ['events', 'tail', '--since', '7d', '--max-events', '3', '--forward-to', `${app.url}/hook`, '-q'],
      {
        env,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const all = shapes(c.spans);
    const forwards = all.filter((s) => s.name === 'svcadm forward');
    expect(forwards).toEqual(
      [1, 2, 3].map(() => ({
        name: 'svcadm forward',
        parent: 'svcadm events tail',
        attributes: {
          'svcadm.forward.outcome': 'acknowledged',
          'svcadm.forward.class': 'acknowledged',
          'svcadm.forward.attempts': 1,
          'http.response.status_code': 204,
        },
      })),
    );
    // One span per event: its attempts are not spans of their own.
    expect(all.filter((s) => s.name.startsWith('POST')).map((s) => s.parent)).toEqual(['svcadm token']);
    const stream = all.find((s) => s.name === 'svcadm event stream');
    expect(stream).toEqual({
      name: 'svcadm event stream',
      parent: 'svcadm events tail',
      attributes: {},
      events: ['connect'],
    });
    // The app continues the trace: each POST names its event's span.
    const traceId = c.spans[0]?.traceId as string;
    const eventIds = c.spans.filter((s) => s.name === 'svcadm forward').map((s) => s.spanId);
    expect(app.requests.map((q) => q.headers.traceparent)).toEqual(eventIds.map((id) => `00-${traceId}-${id}-01`));
    // Never to the tenant.
    const toTenant = (await e.requests()).requests;
    expect(toTenant.length).toBeGreaterThan(0);
    expect(toTenant.some((q) => 'traceparent' in (q.headers ?? {}))).toBe(false);
  });

  it('a failed command: its exit code and error code, no message', async () => {
    const e = await startEmulator();
    const c = await collector();
    const r = await runCli(['policies', 'get', 'rlp_missing000000000000000', '-o', 'json'], {
      env: traced(e, c.endpoint),
    });
    expect(r.code).toBe(5);
    const all = shapes(c.spans);
    expect(all.at(-1)).toEqual({
      name: 'svcadm policies get',
      parent: '-',
      attributes: { 'process.exit.code': 5, 'error.type': 'inexistent_rate_limit_policy' },
      error: true,
    });
    expect(all.find((s) => s.name.startsWith('GET '))).toMatchObject({
      attributes: { 'http.response.status_code': 404, 'error.type': '404' },
    });
  });

  it('a collector that is down: the same output and exit code, at most 1 s more, one line with --debug', async () => {
    const e = await startEmulator();
    const port = await refusedPort();
    const id = e.fixtures.policyIds[0] as string;
    const plain = emulatorEnv(e, { NO_COLOR: '1' });
    const off = await runCli(['policies', 'get', id, '-o', 'json'], { env: plain });
    const started = Date.now();
    const on = await runCli(['policies', 'get', id, '-o', 'json'], {
      env: { ...plain, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
    });
    expect(Date.now() - started).toBeLessThan(1000 + 2000);
    expect(on).toEqual(off);
    const debug = await runCli(['policies', 'get', id, '-o', 'json', '--debug'], {
      env: { ...plain, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
    });
    expect(debug.code).toBe(0);
    expect(debug.stdout).toBe(off.stdout);
    expect(debug.stderr.split('\n').filter((l) => l.includes('traces:'))).toEqual([
      expect.stringMatching(
        new RegExp(`^svcadm: debug: traces: could not export to http://127\\.0\\.0\\.1:${port}/v1/traces: .+`),
      ),
    ]);
  });

  it('a parent given by TRACEPARENT (and TRACESTATE): the command continues that trace', async () => {
    const e = await startEmulator();
    const c = await collector();
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const r = await runCli(['policies', 'get', e.fixtures.policyIds[0] as string, '-o', 'json'], {
      env: traced(e, c.endpoint, { TRACEPARENT: parent, TRACESTATE: 'vendor=abc' }),
    });
    expect(r.code).toBe(0);
    const command = c.spans.find((s) => s.name === 'svcadm policies get');
    expect(command).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      parentSpanId: 'b7ad6b7169203331',
      traceState: 'vendor=abc',
    });
    expect(new Set(c.spans.map((s) => s.traceId))).toEqual(new Set(['0af7651916cd43dd8448eb211c80319c']));
  });

  it('OTEL_TRACES_EXPORTER=none, OTEL_SDK_DISABLED=true: nothing sent, whatever the endpoint; headers reach the collector', async () => {
    const e = await startEmulator();
    const c = await collector();
    const id = e.fixtures.policyIds[0] as string;
    const offs: Record<string, string>[] = [{ OTEL_TRACES_EXPORTER: 'none' }, { OTEL_SDK_DISABLED: 'true' }];
    for (const off of offs) {
      expect((await runCli(['policies', 'get', id], { env: traced(e, c.endpoint, off) })).code).toBe(0);
    }
    expect(c.posts).toEqual([]);
    const r = await runCli(['policies', 'get', id], {
      env: traced(e, c.endpoint, {
        OTEL_EXPORTER_OTLP_HEADERS: 'x-team=a,x-key=general',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-key=traces%20own',
        OTEL_SERVICE_NAME: 'nightly-sync',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=ci,team=platform',
      }),
    });
    expect(r.code).toBe(0);
    expect(c.spans[0]?.headers['x-team']).toBe('a');
    expect(c.spans[0]?.headers['x-key']).toBe('traces own');
    expect(c.spans[0]?.resource).toEqual({
      'service.name': 'nightly-sync',
      'service.version': packageVersion(),
      'deployment.environment.name': 'ci',
      team: 'platform',
    });
  });
});

describe('traces of svcadm mcp', () => {
  it('a span per tool call, by the tool’s name, never its arguments; a failed call by its code', async () => {
    const e = await startEmulator();
    const c = await collector();
    const id = e.fixtures.policyIds[0] as string;
    const s = await connectMcp(['mcp'], traced(e, c.endpoint));
    const ok = await s.client.callTool({ name: 'get_rate_limit_policy', arguments: { id } });
    expect(ok.isError).toBeFalsy();
    const missing = await s.client.callTool({ name: 'get_rate_limit_policy', arguments: { id: 'rlp_missing' } });
    expect(missing.isError).toBe(true);
    await s.close();
    await c.arrived('svcadm mcp');
    const calls = shapes(c.spans).filter((span) => span.name.startsWith('execute_tool'));
    const tool = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_rate_limit_policy' };
    expect(calls).toEqual([
      { name: 'execute_tool get_rate_limit_policy', parent: 'svcadm mcp', attributes: tool },
      {
        name: 'execute_tool get_rate_limit_policy',
        parent: 'svcadm mcp',
        attributes: { ...tool, 'error.type': 'inexistent_rate_limit_policy' },
        error: true,
      },
    ]);
    expect(
      shapes(c.spans)
        .filter((span) => span.name.startsWith('GET '))
        .map((span) => span.parent),
    ).toEqual(['execute_tool get_rate_limit_policy', 'execute_tool get_rate_limit_policy']);
    expect(JSON.stringify(c.spans)).not.toContain(id);
  });
});
