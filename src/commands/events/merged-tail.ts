import type { Invocation } from '../../cli/host.js';
import { allowListenersOfTenants, type Tenants, tenantFailure, tenantsOutcome } from '../../cli/tenants.js';
import { isCursor } from '../../domain/cursor.js';
import { type ErrorKind, Interrupted, interruption, STOP_WORDS, UsageError } from '../../errors.js';
import { mergedFormats } from '../../events/pipeline/event-formats.js';
import {
  mergedTenantSource,
  type TailNote,
  type TenantCursors,
  type TenantEvent,
  type TenantNote,
  type TenantSubscription,
} from '../../events/pipeline/merged-source.js';
import { Pipeline } from '../../events/pipeline/pipeline.js';
import { CursorFileWriter, readTenantCursorFile, tenantCursorText } from '../../events/run/cursor-file.js';
import { TailStops } from '../../events/run/stops.js';
import { CHUNK_RUN_MAX_BYTES } from '../../events/stream/chunk-runs.js';
import { outageError, StreamHealth } from '../../events/stream/stream-health.js';
import { subscribeEvents, timestampOf } from '../../events/stream/subscription.js';
import { errorEnvelope } from '../../io/printer.js';
import { jsonLine } from '../../render/json.js';
import { startingStatus } from '../../render/tail-view.js';
import { neutralize } from '../../text/sanitize.js';
import type { TailOptions } from './options.js';

/** Below this, a tenant's socket would be paused at about every read (a socket read is up to 64 KB). */
const MIN_RUN_BYTES = 16 * 1024;

/** `--from dev=<cursor>,prod=<cursor>`: where each tenant resumes (a tenant left out starts as `--since` says). */
function parseTenantFrom(text: string, profiles: readonly string[]): Record<string, string> {
  // A cursor may hold commas and `=`: a tenant's part starts only where one of the profiles is named.
  const names = profiles.map((p) => p.replace(/[-]/g, '\\-')).join('|');
  const parts = text.split(new RegExp(`,(?=(?:${names})=)`));
  const cursors: Record<string, string> = Object.create(null);
  for (const part of parts) {
    const at = part.indexOf('=');
    const profile = part.slice(0, at);
    const cursor = part.slice(at + 1);
    if (at <= 0 || !profiles.includes(profile) || !isCursor(cursor)) {
      throw new UsageError(
        `--from across tenants takes <profile>=<cursor>,… for the profiles of --profiles, got '${neutralize(part)}'`,
        'paste the resume line a merged tail printed, or start with --since',
      );
    }
    cursors[profile] = cursor;
  }
  return cursors;
}

/**
 * `events tail --profiles …`: the tenants' streams merged as events arrive, through the tail's one pipeline (cli.md
 * "Many tenants"). Each tenant has its own invocation (token, retries, reconnects), its own `--max-events`, its own
 * "down" rule (exit 7, named per tenant); `--cursor-file` keeps a cursor per profile, written atomically past what
 * was printed; a stop prints one resume line that restarts every tenant where it stopped.
 */
export async function runEventsTailAcross(tenants: Tenants, opts: TailOptions): Promise<void> {
  const { inv, list } = tenants;
  const { ctx } = inv;
  const { clock } = ctx;
  const profiles = list.map((t) => t.profile);
  if (opts.forward)
    throw new UsageError('--forward-to runs against one tenant', 'forward each tenant with -p <profile>');
  if (opts.outputFile !== undefined) {
    throw new UsageError('--output-file runs against one tenant', 'use -o ndjson and redirect stdout');
  }
  if (opts.from !== undefined && opts.fromTimestamp !== undefined) {
    throw new UsageError('--from and --since cannot be combined', '--from resumes at a cursor, --since at a time');
  }
  const saved =
    opts.from === undefined && opts.fromTimestamp === undefined && opts.cursorFile
      ? readTenantCursorFile(opts.cursorFile)
      : undefined;
  const start: Record<string, string> = {
    ...(saved ?? {}),
    ...(opts.from ? parseTenantFrom(opts.from, profiles) : {}),
  };
  const cursorFile = opts.cursorFile ? new CursorFileWriter(opts.cursorFile, clock) : undefined;
  cursorFile?.check();
  const started = clock.now();

  const invocations = new Map<string, Invocation>();
  const health = new Map<string, StreamHealth>();
  const failures: Array<{ profile: string; code: number; kind: Exclude<ErrorKind, 'interrupted'> }> = [];
  const full = new Set<string>();
  /** The tenants whose stream is not open now, for the status line. */
  const down = new Set<string>();
  /** Failure lines written among the events (ndjson), awaited before the run ends. */
  const written: Promise<void>[] = [];
  const fail = (profile: string, err: unknown) => {
    const tenant = invocations.get(profile) ?? inv;
    const { refined, code, kind } = tenantFailure(tenants.maker, tenant, err);
    failures.push({ profile, code, kind });
    const { error } = errorEnvelope(refined, code);
    if (inv.globals.format === 'ndjson') {
      // Among the lines, as every command across tenants reports a failed tenant in NDJSON.
      written.push(inv.io.write(jsonLine({ profile, error })).catch(() => {}));
    } else if (inv.globals.formatChosen && inv.globals.format !== 'table' && inv.globals.format !== 'wide') {
      inv.io.stderr.write(`${JSON.stringify({ profile, error })}\n`);
    } else {
      inv.io.stderr.write(
        `svcadm: ${profile}: ${neutralize(error.message)}${error.hint ? ` — ${neutralize(error.hint)}` : ''}\n`,
      );
    }
  };

  // The tenants' sockets share the one tail's bound of what may wait unread: data that waits for its turn outlives
  // the young generation, and 8 tenants at 256 KB each kept 30 MB more in RSS (docs/decisions/2026-11-26-tenants-figures.md).
  const runMaxBytes = Math.max(MIN_RUN_BYTES, Math.floor(CHUNK_RUN_MAX_BYTES / Math.max(1, list.length)));
  const subscriptions: TenantSubscription[] = [];
  for (const { profile } of list) {
    const tenant = tenants.open(profile);
    invocations.set(profile, tenant);
    health.set(profile, new StreamHealth(started));
    let api: ReturnType<typeof tenant.services.api>;
    try {
      api = tenant.services.api();
    } catch (err) {
      fail(profile, err);
      continue;
    }
    subscriptions.push({
      profile,
      batches: (signal) =>
        subscribeEvents({
          api,
          types: opts.types,
          from: start[profile],
          fromTimestamp: start[profile] === undefined ? opts.fromTimestamp : undefined,
          maxReconnects: opts.maxReconnects,
          signal,
          clock,
          random: ctx.random,
          // Safe across tenants: see mergedTenantSource's unsettledBatches.
          reuseLines: true,
          runMaxBytes,
          received: (bytes) => inv.out.received(bytes),
        }),
    });
  }

  const status = startingStatus('connecting', opts.types, undefined, started);
  const stream = await inv.out.stream(mergedFormats(clock, opts.types, profiles), status);
  const stops = new TailStops(ctx.interrupt, clock, opts.durationMs);
  const signal = stops.signal(stream.quit);
  allowListenersOfTenants(ctx.interrupt, signal);
  const note = (entry: TenantNote) => {
    const { profile } = entry;
    if (entry.kind === 'tenant-failed') {
      if (!(entry.error instanceof Interrupted)) fail(profile, entry.error);
      return;
    }
    if (entry.kind === 'tenant-ended') {
      if (entry.full) full.add(profile);
      return;
    }
    const item: TailNote = entry.note;
    const tenantHealth = health.get(profile);
    if (item.kind === 'connected') tenantHealth?.connected();
    if (item.kind === 'reconnecting') {
      tenantHealth?.failed(item.reason, clock.now(), item);
      if (!stream.live) {
        stream.notice(
          `svcadm: ${profile}: ${neutralize(item.reason)}; reconnecting in ${(item.waitMs / 1000).toFixed(1)}s (attempt ${item.attempt})`,
        );
      }
    }
    if (item.kind === 'stream-error' && !item.fatal) {
      stream.notice(
        `svcadm: ${profile}: the service reported a stream error (${neutralize(item.code)}): ${neutralize(item.message)}`,
        true,
      );
    }
    if (item.kind === 'warning') stream.notice(`svcadm: ${profile}: warning: ${neutralize(item.message)}`, true);
    if (item.kind === 'connected') down.delete(profile);
    if (item.kind === 'reconnecting') down.add(profile);
    status.state = down.size > 0 ? 'reconnecting' : 'connected';
  };
  const pipeline = new Pipeline<TenantEvent, TenantCursors, TenantNote>({
    source: mergedTenantSource(subscriptions, start, opts.maxEvents),
    printer: stream,
    written: () => inv.io.settled(),
    settledTo: (cursors) => cursorFile?.update(tenantCursorText(cursors)),
    note,
    progress: (seen) => {
      status.seen = seen;
      if (stream.live) stream.status({ ...status, now: clock.now() });
    },
    signal,
    start,
  });
  stops.follow(pipeline.writeFailed.signal);
  let failure: unknown;
  try {
    await pipeline.run();
  } catch (err) {
    failure = err;
    if (!(err instanceof Interrupted)) throw err;
    await pipeline.finishAfterStop();
  } finally {
    stops.end();
    const seen = pipeline.count;
    stream.close({ ...status, state: 'stopped', seen, now: clock.now() });
    try {
      await cursorFile?.flush();
    } catch (err) {
      failure ??= err;
    }
    for (const tenant of invocations.values()) tenant.services.close();
  }
  const cursors = pipeline.position ?? start;
  const resume = () => {
    const from = profiles
      .filter((p) => cursors[p] !== undefined)
      .map((p) => `${p}=${cursors[p]}`)
      .join(',');
    const since = opts.fromTimestamp ?? timestampOf(started);
    const where = from === '' ? ['--since', since] : ['--from', from];
    const filters = opts.types.length > 0 ? ['--type', opts.types.join(',')] : [];
    const file = opts.cursorFile === undefined ? [] : ['--cursor-file', opts.cursorFile];
    return tenants.paste(['events', 'tail', ...(opts.cursorFile === undefined ? where : []), ...filters, ...file]);
  };
  if (ctx.interrupt.aborted || failure !== undefined) {
    const seen = pipeline.count;
    const how =
      failure !== undefined && !ctx.interrupt.aborted ? 'stopped' : STOP_WORDS[interruption(ctx.interrupt).signal];
    inv.io.stderr.write(`svcadm: ${how} after ${seen} ${seen === 1 ? 'event' : 'events'}\n`);
    inv.io.stderr.write(`resume with: ${resume()}\n`);
    throw failure instanceof Interrupted || failure === undefined ? interruption(ctx.interrupt, true) : failure;
  }
  // The exit-7 rule, per tenant: a tenant that ends while down (not one that reached its --max-events).
  for (const { profile } of list) {
    if (full.has(profile) || failures.some((f) => f.profile === profile)) continue;
    const outage = health.get(profile)?.outage();
    if (outage !== undefined) fail(profile, outageError(outage));
  }
  await Promise.all(written);
  const outcome = tenantsOutcome(list.length, failures, list.length - failures.length);
  if (outcome) throw outcome.addHint(`resume with: ${resume()}`);
}
