import { fingerprintInto } from '../../util/fingerprint.js';

/** How many recent event ids (SSE `id:`, the offset) are remembered to drop a replay. */
const RECENT_IDS = 10_000;
/** Slots of RecentIds' table: a power of two, under half full with RECENT_IDS ids. */
const ID_TABLE_SLOTS = 32_768;
const FINGERPRINT = new Uint32Array(2);

/**
 * The last `RECENT_IDS` ids seen, oldest forgotten first: what the stream drops as a replay. An open-addressing table
 * of 32-bit hashes (`fingerprintInto`) over a ring of the ids (a hash that matches is confirmed on the id itself): a
 * `Set` with deletions cost about 1 µs an event here, a tenth of the tail's time per event
 * (docs/decisions/2026-11-24-replay-memory-hash-table.md).
 */
export class RecentIds {
  /** Ring slot + 1 of the id whose hash lands here (0: empty). */
  readonly #table = new Int32Array(ID_TABLE_SLOTS);
  readonly #ids: string[] = [];
  /** The low 32 bits of each id's fingerprint. */
  readonly #hashes = new Uint32Array(RECENT_IDS);
  #next = 0;

  /** Remembers `id`; false when it was already remembered (one lookup for both questions). */
  add(id: string): boolean {
    fingerprintInto(id, FINGERPRINT);
    const hash = FINGERPRINT[1] as number;
    const table = this.#table;
    const mask = ID_TABLE_SLOTS - 1;
    let at = hash & mask;
    for (let entry = table[at] as number; entry !== 0; entry = table[at] as number) {
      if (this.#hashes[entry - 1] === hash && this.#ids[entry - 1] === id) return false;
      at = (at + 1) & mask;
    }
    const slot = this.#next;
    if (this.#ids.length > slot) {
      this.#forget(slot);
      // Forgetting may have moved entries back: look for a free slot again.
      at = hash & mask;
      while (table[at] !== 0) at = (at + 1) & mask;
      this.#ids[slot] = id;
    } else this.#ids.push(id);
    this.#hashes[slot] = hash;
    table[at] = slot + 1;
    this.#next = (slot + 1) % RECENT_IDS;
    return true;
  }

  /** Takes the id in ring `slot` out of the table, moving later entries of its run back (no tombstones). */
  #forget(slot: number): void {
    const table = this.#table;
    const mask = ID_TABLE_SLOTS - 1;
    let hole = (this.#hashes[slot] as number) & mask;
    while (table[hole] !== slot + 1) hole = (hole + 1) & mask;
    for (let at = (hole + 1) & mask; table[at] !== 0; at = (at + 1) & mask) {
      const entry = table[at] as number;
      const home = (this.#hashes[entry - 1] as number) & mask;
      // The entry may fill the hole unless its home lies after the hole, up to where it sits.
      if (((at - home) & mask) >= ((at - hole) & mask)) {
        table[hole] = entry;
        hole = at;
      }
    }
    table[hole] = 0;
  }
}
