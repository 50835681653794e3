import { describe, expect, it } from 'vitest';
import { INTERFACE_PATHS } from '../../src/api/interface-paths.js';
import { ROUTE_WORDS, routeTemplate } from '../../src/api/route-template.js';
import { pairsOf, tracesDecision } from '../../src/traces/config.js';

const ON = {
  on: true,
  config: {
    endpoint: 'http://localhost:4318/v1/traces',
    protocol: 'http/protobuf',
    headers: {},
    serviceName: 'svcadm',
    resourceAttributes: {},
  },
};

describe('tracesDecision: the OTEL_* rules', () => {
  it('is off unless asked', () => {
    expect(tracesDecision({})).toEqual({ on: false });
    expect(tracesDecision({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toEqual({ on: false });
    expect(tracesDecision({ OTEL_SERVICE_NAME: 'x', TRACEPARENT: '00-a-b-01' })).toEqual({ on: false });
  });

  it('is on with OTEL_TRACES_EXPORTER=otlp (the default endpoint) or an endpoint', () => {
    expect(tracesDecision({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual(ON);
    expect(tracesDecision({ OTEL_TRACES_EXPORTER: 'console, otlp' })).toEqual(ON);
    expect(tracesDecision({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toEqual({
      on: true,
      config: { ...ON.config, endpoint: 'http://c:4318/v1/traces' },
    });
    expect(
      tracesDecision({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t/x',
      }),
    ).toEqual({ on: true, config: { ...ON.config, endpoint: 'https://t/x' } });
  });

  it('is off with OTEL_SDK_DISABLED=true, or an OTEL_TRACES_EXPORTER without otlp, even with an endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(tracesDecision({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toEqual({ on: false });
    expect(tracesDecision({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toEqual({ on: false });
    expect(tracesDecision({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toEqual({
      on: true,
      config: { ...ON.config, endpoint: 'http://c:4318/v1/traces' },
    });
    expect(tracesDecision({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toEqual({ on: false });
    expect(tracesDecision({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toEqual({ on: false });
  });

  it('takes http/protobuf or http/json, the traces’ own variable winning; grpc is off with one --debug line', () => {
    expect(tracesDecision({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({
      on: true,
      config: { ...ON.config, protocol: 'http/json' },
    });
    expect(
      tracesDecision({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }),
    ).toEqual({ on: true, config: { ...ON.config, protocol: 'http/json' } });
    expect(tracesDecision({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual({
      on: false,
      debug:
        'traces: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported (http/protobuf or http/json): nothing is exported',
    });
    expect(tracesDecision({ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4317' })).toEqual({
      on: false,
      debug: 'traces: OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s) URL: nothing is exported',
    });
  });

  it('reads headers (the traces’ winning by name), the service name, resource attributes and the parent', () => {
    expect(
      tracesDecision({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=2',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=two%20words',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource,team=x',
        TRACEPARENT: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        TRACESTATE: 'k=v',
      }),
    ).toEqual({
      on: true,
      config: {
        ...ON.config,
        headers: { a: '1', b: 'two words' },
        serviceName: 'from-resource',
        resourceAttributes: { team: 'x' },
        parent: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'k=v' },
      },
    });
    expect(
      tracesDecision({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_SERVICE_NAME: 'job',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=r',
      }),
    ).toMatchObject({ config: { serviceName: 'job', resourceAttributes: {} } });
  });

  it('reads key=value lists leniently: no name or no = left out, a bad escape kept as written', () => {
    expect({ ...pairsOf('a=1,=2,b,c=%E0%A4%A,__proto__=x') }).toEqual({ a: '1', c: '%E0%A4%A', ['__proto__']: 'x' });
  });
});

describe('routeTemplate: url.template', () => {
  it('keeps the interface’s words and templates every other segment', () => {
    const t = (path: string) => routeTemplate(new URL(`https://t.example.com${path}`));
    expect(t('/api/v2/users/auth0%7C64b0c1/permissions?per_page=100')).toBe('/api/v2/users/{id}/permissions');
    expect(t('/api/v2/rate-limit-policies/rlp_1')).toBe('/api/v2/rate-limit-policies/{id}');
    expect(t('/api/v2/connections/con_1/users')).toBe('/api/v2/connections/{id}/users');
    expect(t('/oauth/token')).toBe('/oauth/token');
    // `svcadm api` paths: what the interface does not name is an argument's value.
    expect(t('/api/v2/roles/rol_9/members/')).toBe('/api/v2/{id}/{id}/{id}/');
    expect(t('/api/v2/users-by-email')).toBe('/api/v2/users-by-email');
  });

  it('knows every word of the interface’s paths', () => {
    const words = INTERFACE_PATHS.flatMap((p) => p.split('/')).filter((w) => w !== '' && !w.startsWith('{'));
    for (const word of words) expect(ROUTE_WORDS.has(word), word).toBe(true);
  });
});
