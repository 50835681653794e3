import type { Invocation } from '../../cli/host.js';
import type { Tenants } from '../../cli/tenants.js';
import { isCursor } from '../../domain/cursor.js';
import { UsageError } from '../../errors.js';
import { mergedFormats } from '../../events/pipeline/event-formats.js';
import { mergedTenantSource } from '../../events/pipeline/merged-source.js';
import { TenantPositions } from '../../events/run/positions.js';
import { runEvents } from '../../events/run/run.js';
import { CHUNK_RUN_MAX_BYTES } from '../../events/stream/chunk-runs.js';
import { subscribeEvents } from '../../events/stream/subscription.js';
import { neutralize } from '../../text/sanitize.js';
import type { TailOptions } from './options.js';

/** Below this, a tenant's socket would be paused at about every read (a socket read is up to 64 KB). */
const MIN_RUN_BYTES = 16 * 1024;

/**
 * `events tail --profiles …`: the tenants' streams merged as events arrive, handed to the events run (cli.md "Many
 * tenants"). Each tenant has its own invocation (token, retries, reconnects), its own `--max-events` and its own
 * "down" rule; the position is a cursor per tenant.
 */
export async function runEventsTailAcross(tenants: Tenants, opts: TailOptions): Promise<void> {
  const { inv, list } = tenants;
  const { clock, random } = inv.ctx;
  if (opts.forward) {
    throw new UsageError('--forward-to runs against one tenant', 'forward each tenant with -p <profile>');
  }
  if (opts.outputFile !== undefined) {
    throw new UsageError('--output-file runs against one tenant', 'use -o ndjson and redirect stdout');
  }
  const profiles = list.map((t) => t.profile);
  const from = opts.from === undefined ? undefined : parseTenantFrom(opts.from, profiles);
  const positions = TenantPositions.open(profiles, { ...opts, from }, clock.now());
  // The tenants' sockets share the one tail's bound of what may wait unread: data that waits for its turn outlives
  // the young generation (docs/decisions/2026-11-26-tenants-figures.md).
  const runMaxBytes = Math.max(MIN_RUN_BYTES, Math.floor(CHUNK_RUN_MAX_BYTES / Math.max(1, list.length)));
  const invocations = new Map<string, Invocation>();
  const subscription = (profile: string, index: number) => {
    const tenant = tenants.open(profile);
    invocations.set(profile, tenant);
    const start = positions.streams[index];
    return {
      profile,
      async *batches(signal: AbortSignal) {
        yield* subscribeEvents({
          api: tenant.services.api(),
          types: opts.types,
          from: start?.cursor,
          fromTimestamp: start?.cursor === undefined ? start?.since : undefined,
          maxReconnects: opts.maxReconnects,
          signal,
          clock,
          random,
          // Safe across tenants: see mergedTenantSource's unsettledBatches.
          reuseLines: true,
          runMaxBytes,
          received: (bytes) => inv.out.received(bytes),
          tracer: inv.ctx.tracer,
        });
      },
    };
  };
  await runEvents(
    inv,
    {
      open: () => mergedTenantSource(profiles.map(subscription), positions.start),
      eventOf: (item) => item.event,
      formats: mergedFormats(clock, opts.types, profiles),
      positions,
      streams: profiles,
      tenants: { list, maker: tenants.maker, invocation: (profile) => invocations.get(profile) },
      command: ['events', 'tail'],
      paste: tenants.paste,
      close: () => {
        for (const tenant of invocations.values()) tenant.services.close();
      },
    },
    opts,
  );
}

/** `--from dev=<cursor>,prod=<cursor>`: where each tenant resumes (a tenant left out starts as `--since` says). */
function parseTenantFrom(text: string, profiles: readonly string[]): Map<string, string> {
  // A cursor may hold commas and `=`: a tenant's part starts only where one of the profiles is named.
  const names = profiles.map((p) => p.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|');
  const parts = text.split(new RegExp(`,(?=(?:${names})=)`));
  const cursors = new Map<string, string>();
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
    cursors.set(profile, cursor);
  }
  return cursors;
}
