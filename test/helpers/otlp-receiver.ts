import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';
import { closeAfterEach } from './close-after-each.js';

// A local OTLP/HTTP collector on a loopback port: what svcadm exports, decoded from protobuf (by protobufjs, with
// the OTLP trace protos below) or from JSON, as spans a test compares whole.

/** The messages of opentelemetry/proto (trace/v1, common/v1, resource/v1) a trace export is made of. */
const OTLP_PROTO = `
syntax = "proto3";
package otlp;
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message Status { string message = 2; int32 code = 3; }
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Link { bytes trace_id = 1; bytes span_id = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; repeated Event events = 11; repeated Link links = 13; Status status = 15;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;
const Request = protobuf.parse(OTLP_PROTO, { keepCase: true }).root.lookupType('otlp.ExportTraceServiceRequest');

export type Value = string | number | boolean;

/** One span as received: ids in hex, attributes as a plain record. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  traceState: string;
  attributes: Record<string, Value>;
  events: { name: string; attributes: Record<string, Value> }[];
  /** 0 unset, 1 ok, 2 error; and whether a message came with it. */
  status: { code: number; message: string };
  resource: Record<string, Value>;
  /** The export it came in: `http/protobuf` or `http/json`. */
  protocol: string;
  /** The headers of that export. */
  headers: Record<string, string | string[] | undefined>;
}

interface RawKeyValue {
  key: string;
  value?: Record<string, unknown>;
}

function attributeValue(v: Record<string, unknown> | undefined): Value {
  if (!v) return '';
  const s = v.string_value ?? v.stringValue;
  if (s !== undefined) return String(s);
  const b = v.bool_value ?? v.boolValue;
  if (b !== undefined) return Boolean(b);
  const i = v.int_value ?? v.intValue;
  if (i !== undefined) return Number(i);
  const d = v.double_value ?? v.doubleValue;
  if (d !== undefined) return Number(d);
  throw new Error(`an attribute value svcadm never sends: ${JSON.stringify(v)}`);
}

function attributesOf(list: RawKeyValue[] | undefined): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const kv of list ?? []) out[kv.key] = attributeValue(kv.value);
  return out;
}

/** Ids: bytes in protobuf, hex strings in OTLP/JSON. */
function hex(id: unknown): string {
  if (id === undefined || id === null) return '';
  if (typeof id === 'string') return id.toLowerCase();
  return Buffer.from(id as Uint8Array).toString('hex');
}

// biome-ignore lint/suspicious/noExplicitAny: the decoded message, read field by field below
type Raw = any;

function spansOf(request: Raw, protocol: string, headers: ReceivedSpan['headers']): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resource_spans ?? request.resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scope_spans ?? rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          name: s.name,
          traceId: hex(s.trace_id ?? s.traceId),
          spanId: hex(s.span_id ?? s.spanId),
          parentSpanId: hex(s.parent_span_id ?? s.parentSpanId),
          traceState: s.trace_state ?? s.traceState ?? '',
          attributes: attributesOf(s.attributes),
          events: (s.events ?? []).map((e: Raw) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
          resource,
          protocol,
          headers,
        });
      }
    }
  }
  return spans;
}

/** The collector: its traces URL, and every span received so far. */
export interface OtlpReceiver {
  /** The endpoint for `OTEL_EXPORTER_OTLP_ENDPOINT` (the traces are POSTed to `/v1/traces` below it). */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Every POST, in order (path and content type). */
  readonly posts: { url: string; contentType: string }[];
  /** Resolves once a span named `name` has arrived (a run whose end the test does not await, such as a server's). */
  arrived(name: string): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(status = 200): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const posts: { url: string; contentType: string }[] = [];
  const waiting: { name: string; done: (span: ReceivedSpan) => void }[] = [];
  const received = (batch: ReceivedSpan[]) => {
    spans.push(...batch);
    for (const w of [...waiting]) {
      const span = batch.find((s) => s.name === w.name);
      if (span) {
        waiting.splice(waiting.indexOf(w), 1);
        w.done(span);
      }
    }
  };
  // Its own server, not startLoopback's: a protobuf body is bytes, not text.
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const contentType = String(req.headers['content-type']);
      posts.push({ url: req.url ?? '', contentType });
      const body = Buffer.concat(chunks);
      if (status === 200) {
        if (contentType === 'application/x-protobuf') {
          const message = Request.toObject(Request.decode(body), { longs: Number, bytes: Buffer, defaults: false });
          received(spansOf(message, 'http/protobuf', req.headers));
        } else {
          received(spansOf(JSON.parse(body.toString('utf8')), 'http/json', req.headers));
        }
      }
      res.writeHead(status, { 'content-type': contentType }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    posts,
    arrived: (name) => {
      const span = spans.find((s) => s.name === name);
      return span ? Promise.resolve(span) : new Promise((done) => waiting.push({ name, done }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** For a file whose tests each start a collector: each closed after its test. */
export function otlpReceiverPerTest(): (status?: number) => Promise<OtlpReceiver> {
  const closeAfterTest = closeAfterEach();
  return async (status) => closeAfterTest(await startOtlpReceiver(status));
}
