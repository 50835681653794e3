/**
 * The V8 settings of long-running output, decided here and applied by the Printer alone: every `--all` and every
 * stream (`Printer.all`, `Printer.stream`), the live view, and the bytes a stream receives (`Printer.received`).
 * Commands never set them (docs/decisions/2026-11-25-memory-policy-in-the-printer.md).
 */

/** The settings this process has been given so far, in order (what `--debug` and the tests can see). */
const applied: string[] = [];

// node:v8 is loaded when a command asks for it, not at every start-up.
function setFlags(flags: string): void {
  if (applied.includes(flags)) return;
  process.getBuiltinModule('node:v8').setFlagsFromString(flags);
  applied.push(flags);
}

export function appliedMemorySettings(): readonly string[] {
  return applied;
}

/**
 * For output that streams many small short-lived objects (`--all`, `events tail`): V8 otherwise keeps doubling the
 * young generation (up to 32 MB of semi-spaces) for garbage that lives microseconds; holding it at its start size
 * keeps peak RSS low and flat at no measurable cost in throughput
 * (docs/decisions/2026-11-23-young-generation-kept-small.md).
 */
export function keepYoungGenerationSmall(): void {
  setFlags('--semi-space-growth-factor=1');
}

/**
 * For the interactive live view of `events tail` (Ink and React on top of the stream): V8's heuristics for memory
 * over speed. Over 100,000 events in a pseudo-terminal the view peaked at 126 MB without it and 89 MB with it, at
 * 5,400 events/s instead of 7,700: far above any tenant's event rate
 * (docs/decisions/2026-11-23-prefer-small-heap.md).
 */
export function preferSmallHeap(): void {
  setFlags('--optimize-for-size');
}

/** A stream's bytes received between two minor collections. */
export const MINOR_COLLECTION_BYTES = 1024 * 1024;

type Collection = (options?: { type: 'minor' }) => void;
let collection: Collection | undefined;

/**
 * V8's own collector, reached through a new context: `--expose-gc` set at run time reaches only new contexts. Without
 * options it collects the whole heap (Node 20's V8 takes `{ type: 'major' }` for a minor collection).
 */
function collect(type: 'minor' | 'full'): void {
  if (!collection) {
    setFlags('--expose-gc');
    collection = process.getBuiltinModule('node:vm').runInNewContext('gc') as Collection;
  }
  if (type === 'minor') collection({ type });
  else collection();
}

/**
 * For a stream (`events tail`): a minor collection after every `bytes` received. Each socket read brings a 64 KB
 * buffer that is garbage once its events are written, and the tail makes so little other garbage that the young
 * generation fills slowly: about 10 MB of dead read buffers waited for a collection. One every megabyte kept the peak
 * RSS of 100,000 events at 66–68 MB instead of 77–86, at no measurable cost. Node has no other way to ask for one:
 * `--expose-gc` set at run time reaches only new contexts, hence the `gc` of a new one
 * (docs/decisions/2026-11-24-minor-collection-per-megabyte.md).
 */
export function collectAfterBytes(bytes: number): (received: number) => void {
  let since = 0;
  return (received) => {
    since += received;
    if (since < bytes) return;
    since = 0;
    collect('minor');
  };
}

/** The list text a run across tenants spools between two full collections. */
export const FULL_COLLECTION_BYTES = 4 * 1024 * 1024;

let spooledSinceCollection = 0;

/**
 * For `--all` lists across tenants, each tenant's pages written to its temporary file as they come: a full
 * collection after every `FULL_COLLECTION_BYTES` of list text, counted across the tenants running at once. With the
 * young generation kept small, each page's read buffers and cells outlive two minor collections while the page is
 * parsed and written, and are promoted; V8 counts little of that memory, so the old generation waited about 10 s
 * between full collections, and the peak RSS grew with the length of the run, not with what it holds (json,
 * `--parallel 1`: 71 MB for 8 tenants of 24 MB each, 81 MB for 24). Every 4 MB held it flat (64 and 67 MB; tables
 * at `--parallel 8` 91 and 99 MB) for about 100 collections of 10 ms over 24 such tenants, some 4 % of the run's
 * time; every 16 MB left tables 12 % apart (docs/decisions/2026-11-28-tenant-results-spooled.md).
 */
export function spooledListText(bytes: number): void {
  spooledSinceCollection += bytes;
  if (spooledSinceCollection < FULL_COLLECTION_BYTES) return;
  spooledSinceCollection = 0;
  collect('full');
}
