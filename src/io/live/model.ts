import { groupedCount } from '../../render/progress-text.js';
/** Events held while the display is paused: past this many the oldest are not shown (the footer says how many). */
export const HOLD_MAX = 5000;
/** The inspector's ring: the most recent events, at most this many… */
export const RING_MAX_EVENTS = 500;
/** …and at most this many bytes of their JSON, whichever is smaller. */
export const RING_MAX_BYTES = 8 * 1024 * 1024;
/**
 * Event types counted (and offered by `t`): the server names them, so past this many a new one is counted under
 * OTHER_TYPES, and a name is cut to TYPE_NAME_MAX characters.
 */
export const TYPES_MAX = 256;
export const TYPE_NAME_MAX = 128;
export const OTHER_TYPES = '(other types)';

/** One event as the view has it: its line's parts, its type, what `/` searches, its JSON (for the inspector). */
export interface LiveEntry<R> {
  readonly row: R;
  readonly kind: string;
  readonly text: string;
  readonly json: Uint8Array;
}

/** An event's type as counted and picked: cut to TYPE_NAME_MAX. */
function typeName(entry: { readonly kind: string }): string {
  return entry.kind.length > TYPE_NAME_MAX ? entry.kind.slice(0, TYPE_NAME_MAX) : entry.kind;
}

/** An event held while paused: what its line needs, not its JSON (the ring keeps that, within its bounds). */
type HeldEntry<R> = Omit<LiveEntry<R>, 'json'>;

export type LiveMode = 'live' | 'filter' | 'types' | 'inspect';

/** What the Ink app draws: replaced (never changed) on every change, for useSyncExternalStore. */
export interface LiveSnapshot<S> {
  readonly status: S;
  readonly mode: LiveMode;
  readonly paused: boolean;
  /** Events held while paused, and how many of them were let go past HOLD_MAX. */
  readonly held: number;
  readonly dropped: number;
  /** The filters in force: text (`/`) and type (`t`). */
  readonly filter: string;
  readonly type: string | undefined;
  /** What is being typed after `/`, and the type under the cursor in the `t` picker. */
  readonly draft: string;
  readonly pick: number;
  /** Event types seen so far, in the order they came. */
  readonly types: readonly string[];
  /** The inspector: the selected event (index into `ring`, newest last) and the first payload line shown. */
  readonly selected: number;
  readonly scroll: number;
  readonly ring: readonly LiveEntry<unknown>[];
  readonly columns: number;
  readonly rows: number;
  /** Set once the tail has stopped: the last status and the count of each event type. */
  readonly final: { readonly status: S; readonly counts: ReadonlyArray<readonly [string, number]> } | undefined;
}

export interface LiveKey {
  upArrow?: boolean;
  downArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
  tab?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
}

export interface LiveModelOptions<R, S> {
  /** A new formatter of rows into lines (it remembers the last day shown): one for the whole run. */
  lines: () => (row: R, width: number) => string;
  initial: S;
  columns: number;
  rows: number;
  /** `q`: stop as --max-events does. */
  quit: () => void;
  /** Ctrl-C: the same interruption as the signal (exit 130). */
  interrupt: () => void;
}

/**
 * The state of the live view, apart from React: events in, keys in, a snapshot out. The stream never waits for it
 * and nothing here reaches back into the stream except `q` and Ctrl-C.
 */
export class LiveModel<R, S> {
  readonly #options: LiveModelOptions<R, S>;
  readonly #format: (row: R, width: number) => string;
  #snapshot: LiveSnapshot<S>;
  readonly #listeners = new Set<() => void>();
  #hold: HeldEntry<R>[] = [];
  #ring: LiveEntry<R>[] = [];
  #ringBytes = 0;
  readonly #counts = new Map<string, number>();
  /** Where finished lines go (into the scrollback, above the live part); held here until the app is there. */
  #sink: ((text: string) => void) | undefined;
  #unwritten: string[] = [];

  constructor(options: LiveModelOptions<R, S>) {
    this.#options = options;
    this.#format = options.lines();
    this.#snapshot = {
      status: options.initial,
      mode: 'live',
      paused: false,
      held: 0,
      dropped: 0,
      filter: '',
      type: undefined,
      draft: '',
      pick: 0,
      types: [],
      selected: 0,
      scroll: 0,
      ring: [],
      columns: options.columns,
      rows: options.rows,
      final: undefined,
    };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly snapshot = (): LiveSnapshot<S> => this.#snapshot;

  #set(change: Partial<LiveSnapshot<S>>): void {
    this.#snapshot = { ...this.#snapshot, ...change };
    for (const listener of this.#listeners) listener();
  }

  /**
   * The terminal's new size: the live part is drawn for it. Lines already written are the terminal's, each once: they
   * are never written again (docs/decisions/2026-11-28-live-view-resize-scrollback.md).
   */
  resize(columns: number, rows: number): void {
    this.#set({ columns, rows });
  }

  /** New events: counted, kept for the inspector, shown (unless paused or filtered out). */
  add(entries: readonly LiveEntry<R>[]): void {
    if (entries.length === 0) return;
    const s = this.#snapshot;
    let types = s.types;
    for (const entry of entries) {
      let kind = typeName(entry);
      if (!this.#counts.has(kind) && this.#counts.size >= TYPES_MAX) kind = OTHER_TYPES;
      const count = this.#counts.get(kind);
      this.#counts.set(kind, (count ?? 0) + 1);
      if (count === undefined && kind !== OTHER_TYPES) types = [...types, kind];
      this.#remember(entry);
    }
    const change: { -readonly [K in keyof LiveSnapshot<S>]?: LiveSnapshot<S>[K] } = { types };
    if (s.paused || s.mode === 'inspect') {
      for (const { row, kind, text } of entries) this.#hold.push({ row, kind, text });
      const over = this.#hold.length - HOLD_MAX;
      if (over > 0) {
        this.#hold.splice(0, over);
        change.dropped = s.dropped + over;
      }
      change.held = this.#hold.length;
    } else {
      this.#emit(this.#lines(entries));
    }
    this.#set(change);
  }

  status(status: S): void {
    this.#set({ status });
  }

  /** The tail has stopped: what was held goes out, then the last status and the count of each type. */
  close(final: S): void {
    const held = this.#hold;
    this.#hold = [];
    const counts = [...this.#counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    this.#emit(this.#lines(held, this.#snapshot.dropped));
    this.#set({
      dropped: 0,
      mode: 'live',
      paused: false,
      held: 0,
      final: { status: final, counts },
    });
  }

  key(input: string, key: LiveKey): void {
    const s = this.#snapshot;
    if (s.final) return;
    // Keys typed faster than they are read come as one string: `/grace` is `/` then `grace`.
    const chars = [...input];
    if (chars.length > 1 && s.mode !== 'filter' && !key.ctrl && !key.meta) {
      for (const ch of chars) this.key(ch, {});
      return;
    }
    if (key.ctrl && input === 'c') {
      this.#options.interrupt();
      return;
    }
    switch (s.mode) {
      case 'filter':
        this.#filterKey(input, key);
        return;
      case 'types':
        this.#typeKey(input, key);
        return;
      case 'inspect':
        this.#inspectKey(input, key);
        return;
      case 'live':
        this.#liveKey(input, key);
        return;
    }
  }

  #liveKey(input: string, key: LiveKey): void {
    const s = this.#snapshot;
    if (key.escape) {
      this.#set({ filter: '', type: undefined });
      return;
    }
    if (key.return || input === 'i') {
      if (this.#ring.length === 0) return;
      this.#set({ mode: 'inspect', selected: this.#ring.length - 1, scroll: 0, ring: this.#ring.slice() });
      return;
    }
    switch (input) {
      case 'q':
        this.#options.quit();
        return;
      case 'p':
        if (!s.paused) {
          this.#set({ paused: true });
          return;
        }
        this.#set({ paused: false });
        this.release();
        return;
      case '/':
        this.#set({ mode: 'filter', draft: s.filter });
        return;
      case 't': {
        if (s.types.length === 0) return;
        const at = s.type === undefined ? 0 : Math.max(0, s.types.indexOf(s.type));
        this.#set({ mode: 'types', pick: at });
        return;
      }
    }
  }

  #filterKey(input: string, key: LiveKey): void {
    const s = this.#snapshot;
    if (key.escape) {
      this.#set({ mode: 'live', draft: '', filter: '' });
      return;
    }
    if (key.return) {
      this.#set({ mode: 'live', filter: s.draft.trim(), draft: '' });
      return;
    }
    if (key.backspace || key.delete) {
      this.#set({ draft: [...s.draft].slice(0, -1).join('') });
      return;
    }
    if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return;
    // Typed text only: a pasted control character is not a filter.
    const typed = [...input].filter((ch) => ch >= ' ' && ch !== '\x7f').join('');
    if (typed !== '' && s.draft.length < 200) this.#set({ draft: s.draft + typed });
  }

  #typeKey(input: string, key: LiveKey): void {
    const s = this.#snapshot;
    const n = s.types.length;
    if (key.escape) {
      this.#set({ mode: 'live', type: undefined });
      return;
    }
    if (key.return) {
      this.#set({ mode: 'live', type: s.types[s.pick] });
      return;
    }
    if (key.rightArrow || key.downArrow || input === 't' || key.tab) {
      this.#set({ pick: (s.pick + 1) % n });
      return;
    }
    if (key.leftArrow || key.upArrow) {
      this.#set({ pick: (s.pick + n - 1) % n });
      return;
    }
  }

  #inspectKey(input: string, key: LiveKey): void {
    const s = this.#snapshot;
    // Back to the live view; what came meanwhile goes out with `release`, once the main screen is back.
    if (key.escape || input === 'q' || input === 'i') {
      this.#set({ mode: 'live' });
      return;
    }
    const last = s.ring.length - 1;
    if (key.upArrow || input === 'k') {
      this.#set({ selected: Math.max(0, s.selected - 1), scroll: 0 });
      return;
    }
    if (key.downArrow || input === 'j') {
      this.#set({ selected: Math.min(last, s.selected + 1), scroll: 0 });
      return;
    }
    const page = Math.max(1, s.rows - 12);
    if (key.pageDown || input === ' ') {
      this.#set({ scroll: s.scroll + page });
      return;
    }
    if (key.pageUp || input === 'b') {
      this.#set({ scroll: Math.max(0, s.scroll - page) });
      return;
    }
  }

  /** Where finished lines go from now on (what came before goes there first). */
  attach(sink: (text: string) => void): void {
    this.#sink = sink;
    const lines = this.#unwritten;
    this.#unwritten = [];
    this.#emit(lines);
  }

  #emit(lines: readonly string[]): void {
    if (lines.length === 0) return;
    if (this.#sink) this.#sink(`${lines.join('\n')}\n`);
    else this.#unwritten.push(...lines);
  }

  /** The inspector can open: there is an event to show, and the view is live. */
  get canInspect(): boolean {
    const s = this.#snapshot;
    return s.mode === 'live' && s.final === undefined && this.#ring.length > 0;
  }

  /** Leaves the inspector (the tail is stopping while it is open). */
  leaveInspector(): void {
    if (this.#snapshot.mode === 'inspect') this.#set({ mode: 'live' });
  }

  /** What was held (by a pause or the inspector) goes into the scrollback, unless the display is paused. */
  release(): void {
    const s = this.#snapshot;
    if (s.paused || s.mode === 'inspect' || (this.#hold.length === 0 && s.dropped === 0)) return;
    const held = this.#hold;
    this.#hold = [];
    this.#emit(this.#lines(held, s.dropped));
    this.#set({ held: 0, dropped: 0 });
  }

  /** The next batch for the scrollback: the lines of the entries the filters let through. */
  #lines(entries: readonly HeldEntry<R>[], dropped = 0): string[] {
    const s = this.#snapshot;
    const lines: string[] = [];
    if (dropped > 0) lines.push(`… ${groupedCount(dropped)} held events not shown`);
    const filter = s.filter.toLowerCase();
    for (const entry of entries) {
      if (s.type !== undefined && typeName(entry) !== s.type) continue;
      if (filter !== '' && !entry.text.toLowerCase().includes(filter)) continue;
      const text = this.#format(entry.row, s.columns);
      lines.push(text.endsWith('\n') ? text.slice(0, -1) : text);
    }
    return lines;
  }

  #remember(entry: LiveEntry<R>): void {
    this.#ring.push(entry);
    this.#ringBytes += entry.json.byteLength;
    let drop = 0;
    while (
      this.#ring.length - drop > 1 &&
      (this.#ring.length - drop > RING_MAX_EVENTS || this.#ringBytes > RING_MAX_BYTES)
    ) {
      this.#ringBytes -= this.#ring[drop]?.json.byteLength ?? 0;
      drop++;
    }
    if (drop > 0) this.#ring.splice(0, drop);
  }
}
