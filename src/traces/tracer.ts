/**
 * The one small interface svcadm traces through: the HTTP client, the token, the tenants of a `--profiles` run, the
 * events run, the forwarder and MCP call it alike. Off (the default), it is `NO_TRACER`, whose spans do nothing and
 * which loads nothing; on, it is the OpenTelemetry SDK, loaded late (`./otel.ts`, docs/decisions/2026-11-28-traces.md).
 * What goes into a span is chosen by its caller, under one rule: names and codes, never a secret, a token, an
 * e-mail address, an argument's value, or an exception's message.
 */

/** An attribute's value: what OpenTelemetry takes, less arrays (svcadm records none). */
export type AttributeValue = string | number | boolean;
export type Attributes = Readonly<Record<string, AttributeValue>>;

/** One span: open from `startSpan` to `end`. */
export interface Span {
  /** Renames it (the command span, once the command line is read). */
  updateName(name: string): void;
  setAttributes(attributes: Attributes): void;
  /** A moment inside the span: a connect, a reconnect, a rotation. */
  addEvent(name: string, attributes?: Attributes): void;
  /** The span failed with svcadm's error code (`error.type`); no message is recorded. */
  failed(code: string): void;
  /** The W3C `traceparent` that names this span, for a request to the user's own app; undefined when off. */
  traceparent(): string | undefined;
  end(): void;
}

export interface Tracer {
  /** Traces are on: callers may skip work made only for a span. */
  readonly on: boolean;
  /** A span, child of the active one (or of `TRACEPARENT`'s parent), not made active. */
  startSpan(name: string, attributes?: Attributes): Span;
  /** Runs `fn` with `span` active: the spans started inside it are its children (across awaits). */
  withSpan<T>(span: Span, fn: () => T): T;
  /** The active span: the command's, when nothing nearer is open. */
  activeSpan(): Span;
  /**
   * Sends what is queued and stops, within `capMs` (never longer: a collector that is down or slow costs at most
   * that); resolves with a line saying why nothing or not all was exported, for `--debug`, else undefined.
   */
  shutdown(capMs: number): Promise<string | undefined>;
}

/** The span of `NO_TRACER`: does nothing. */
export const NO_SPAN: Span = Object.freeze({
  updateName() {},
  setAttributes() {},
  addEvent() {},
  failed() {},
  traceparent: () => undefined,
  end() {},
});

/** Traces off: nothing recorded, nothing loaded, nothing sent. */
export const NO_TRACER: Tracer = Object.freeze({
  on: false,
  startSpan: () => NO_SPAN,
  withSpan: <T>(_span: Span, fn: () => T): T => fn(),
  activeSpan: () => NO_SPAN,
  shutdown: async () => undefined,
});

/** Runs `fn` inside a span named `name`, ending it when `fn` settles; a failure marks it with `codeOf` the error. */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  codeOf: (err: unknown) => string,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  if (!tracer.on) return fn(NO_SPAN);
  const span = tracer.startSpan(name, attributes);
  try {
    return await tracer.withSpan(span, () => fn(span));
  } catch (err) {
    span.failed(codeOf(err));
    throw err;
  } finally {
    span.end();
  }
}
