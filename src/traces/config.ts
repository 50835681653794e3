/** The environment the decision reads (the context's `Env`, named here so that traces/ imports nothing above it). */
type Env = Readonly<Record<string, string | undefined>>;

/** The protocols svcadm exports traces with: OTLP over HTTP, as protobuf (the default) or JSON. */
export type TracesProtocol = 'http/protobuf' | 'http/json';

/** How traces are exported, read from the standard `OTEL_*` variables. */
export interface TracesConfig {
  /** The URL spans are POSTed to (`…/v1/traces`). */
  readonly endpoint: string;
  readonly protocol: TracesProtocol;
  /** `OTEL_EXPORTER_OTLP_HEADERS`, the traces' own winning name by name. */
  readonly headers: Readonly<Record<string, string>>;
  /** `service.name`: `OTEL_SERVICE_NAME`, else `service.name` of the resource attributes, else `svcadm`. */
  readonly serviceName: string;
  /** `OTEL_RESOURCE_ATTRIBUTES`, without `service.name` (which `serviceName` holds). */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  /** The parent from `TRACEPARENT` (and `TRACESTATE`), when one is given. */
  readonly parent?: { readonly traceparent: string; readonly tracestate?: string };
}

/** Whether traces are on: their configuration, or off, with the one `--debug` line that says why when it is worth one. */
export type TracesDecision =
  | { readonly on: true; readonly config: TracesConfig }
  | { readonly on: false; readonly debug?: string };

/** Where OTLP/HTTP listens when only `OTEL_TRACES_EXPORTER=otlp` is set. */
const DEFAULT_ENDPOINT = 'http://localhost:4318';
const TRACES_PATH = 'v1/traces';

/** A variable's value, an empty one counting as unset (as the OpenTelemetry specification reads them). */
function variable(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * **The** decision whether svcadm traces, from the environment alone (cli.md round 5, "Traces"): on with
 * `OTEL_TRACES_EXPORTER=otlp` or an OTLP endpoint; off with `OTEL_SDK_DISABLED=true`, or an `OTEL_TRACES_EXPORTER`
 * that does not name `otlp` (`none`), even with an endpoint. A protocol other than OTLP/HTTP (`grpc`) or an endpoint
 * that is not an http(s) URL turns them off with one `--debug` line. Pure: no I/O.
 */
export function tracesDecision(env: Env): TracesDecision {
  if (variable(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { on: false };
  const exporter = variable(env, 'OTEL_TRACES_EXPORTER');
  const tracesEndpoint = variable(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = variable(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (exporter !== undefined) {
    const names = exporter.split(',').map((n) => n.trim().toLowerCase());
    if (!names.includes('otlp')) return { on: false };
  } else if (tracesEndpoint === undefined && endpoint === undefined) {
    return { on: false };
  }
  const protocolVariable = variable(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = variable(env, protocolVariable) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    return {
      on: false,
      debug: `traces: ${protocolVariable}=${protocol} is not supported (http/protobuf or http/json): nothing is exported`,
    };
  }
  const url = tracesEndpoint ?? `${(endpoint ?? DEFAULT_ENDPOINT).replace(/\/+$/, '')}/${TRACES_PATH}`;
  if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url)) {
    const variable = tracesEndpoint ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
    return { on: false, debug: `traces: ${variable} is not an http(s) URL: nothing is exported` };
  }
  const headers = {
    ...pairsOf(variable(env, 'OTEL_EXPORTER_OTLP_HEADERS')),
    ...pairsOf(variable(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
  };
  const { 'service.name': namedInResource, ...resourceAttributes } = pairsOf(variable(env, 'OTEL_RESOURCE_ATTRIBUTES'));
  const serviceName = variable(env, 'OTEL_SERVICE_NAME') ?? namedInResource ?? 'svcadm';
  const traceparent = variable(env, 'TRACEPARENT');
  const tracestate = variable(env, 'TRACESTATE');
  const parent =
    traceparent === undefined ? undefined : tracestate === undefined ? { traceparent } : { traceparent, tracestate };
  const config: TracesConfig = { endpoint: url, protocol, headers, serviceName, resourceAttributes };
  return { on: true, config: parent ? { ...config, parent } : config };
}

/**
 * `key1=value1,key2=value2` (the W3C Baggage form the OTLP variables use): values percent-decoded, a pair without
 * a name or `=` left out, a later name winning. A record without a prototype: a name is never a property of Object.
 */
export function pairsOf(text: string | undefined): Record<string, string> {
  const pairs: Record<string, string> = Object.create(null) as Record<string, string>;
  if (text === undefined) return pairs;
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    if (name === '') continue;
    const raw = part.slice(at + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // A malformed escape: the value as written.
    }
    pairs[name] = value;
  }
  return pairs;
}
