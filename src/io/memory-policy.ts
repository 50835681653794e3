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

type MinorCollection = (options: { type: 'minor' }) => void;
let minorCollection: MinorCollection | undefined;

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
    if (!minorCollection) {
      setFlags('--expose-gc');
      minorCollection = process.getBuiltinModule('node:vm').runInNewContext('gc') as MinorCollection;
    }
    minorCollection({ type: 'minor' });
  };
}
