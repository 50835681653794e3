// Traces on: the OpenTelemetry SDK behind svcadm's `Tracer` (./tracer.ts). Loaded only by `import()` when
// `tracesDecision` says on: from npm a chunk of its own, inside the executable a lazily initialised module
// (docs/decisions/2026-11-28-lazy-code-in-the-executable.md); a run with traces off never loads it.
import {
  defaultTextMapGetter,
  type Context as OtelContext,
  type Span as OtelSpan,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { type Clock, systemClock } from '../clock.js';
import type { TracesConfig } from './config.js';
import type { Attributes, Span, Tracer } from './tracer.js';

/** Spans waiting for export at most; beyond, new ones are dropped (a long forwarding tail never grows memory). */
const MAX_QUEUED_SPANS = 2048;
/** An export in the run's course: every 5 s, 512 spans at most, each POST given up after the exit's own cap. */
const EXPORT_EVERY_MS = 5000;
const EXPORT_BATCH = 512;
const EXPORT_TIMEOUT_MS = 1000;
/** An attribute's value is cut here: none of svcadm's is longer, a resource attribute might be. */
const MAX_ATTRIBUTE_CHARS = 1024;

/** svcadm's `Span` over an OpenTelemetry span. */
class SdkSpan implements Span {
  constructor(readonly span: OtelSpan) {}
  updateName(name: string): void {
    this.span.updateName(name);
  }
  setAttributes(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }
  addEvent(name: string, attributes?: Attributes): void {
    this.span.addEvent(name, attributes);
  }
  failed(code: string): void {
    // The code only: a status without a description, no exception event (a message may hold what it was given).
    this.span.setAttribute('error.type', code);
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }
  traceparent(): string | undefined {
    const { traceId, spanId, traceFlags } = this.span.spanContext();
    return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  }
  end(): void {
    this.span.end();
  }
}

/** The SDK's tracer for one process: the exporter of the configured protocol behind a bounded batch. */
export function startTraces(config: TracesConfig, version: string, clock: Clock = systemClock): Tracer {
  let exportFailure: string | undefined;
  // An export that failed in the run's course (the collector down): remembered for the one --debug line, never
  // printed (the SDK's default handler would write to the console).
  setGlobalErrorHandler((err) => {
    exportFailure ??= failureText(err);
  });
  const exporterConfig = {
    url: config.endpoint,
    headers: { ...config.headers },
    timeoutMillis: EXPORT_TIMEOUT_MS,
    concurrencyLimit: 2,
  };
  const exporter =
    config.protocol === 'http/json' ? new JsonExporter(exporterConfig) : new ProtobufExporter(exporterConfig);
  const provider = new BasicTracerProvider({
    // Only the service's name, its version and OTEL_RESOURCE_ATTRIBUTES: no host, process or command line.
    resource: resourceFromAttributes({
      ...config.resourceAttributes,
      [ATTR_SERVICE_NAME]: config.serviceName,
      [ATTR_SERVICE_VERSION]: version,
    }),
    generalLimits: { attributeValueLengthLimit: MAX_ATTRIBUTE_CHARS },
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxQueueSize: MAX_QUEUED_SPANS,
        maxExportBatchSize: EXPORT_BATCH,
        scheduledDelayMillis: EXPORT_EVERY_MS,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  const tracer = provider.getTracer('svcadm', version);
  const contexts = new AsyncLocalStorageContextManager().enable();
  // The parent given by TRACEPARENT/TRACESTATE, else none: the run's spans start a trace.
  const base = config.parent
    ? new W3CTraceContextPropagator().extract(ROOT_CONTEXT, { ...config.parent }, defaultTextMapGetter)
    : ROOT_CONTEXT;
  const active = (): OtelContext => {
    const current = contexts.active();
    return trace.getSpan(current) ? current : base;
  };
  const wrap = (span: OtelSpan): SdkSpan => new SdkSpan(span);
  let root: SdkSpan | undefined;
  return {
    on: true,
    startSpan(name, attributes) {
      return wrap(tracer.startSpan(name, attributes ? { attributes } : {}, active()));
    },
    withSpan(span, fn) {
      if (!(span instanceof SdkSpan)) return fn();
      return contexts.with(trace.setSpan(active(), span.span), fn);
    },
    activeSpan() {
      const span = trace.getSpan(contexts.active());
      if (span) return wrap(span);
      root ??= wrap(tracer.startSpan('svcadm', {}, base));
      return root;
    },
    async shutdown(capMs) {
      root?.end();
      let timedOut = false;
      const cap = new AbortController();
      const flushed = provider.forceFlush().then(
        () => {},
        (err: unknown) => {
          exportFailure ??= failureText(err);
        },
      );
      await Promise.race([
        flushed,
        clock.sleep(capMs, cap.signal).then(
          () => {
            timedOut = true;
          },
          () => {},
        ),
      ]);
      cap.abort();
      contexts.disable();
      // Whatever is still in flight is left: the process exits without waiting for it.
      void provider.shutdown().catch(() => {});
      if (exportFailure !== undefined) return `traces: could not export to ${config.endpoint}: ${exportFailure}`;
      if (timedOut) return `traces: export to ${config.endpoint} unfinished after ${capMs} ms: given up`;
      return undefined;
    },
  };
}

function failureText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]?.slice(0, 200) ?? '';
}
