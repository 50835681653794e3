import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveApp } from '../../../src/io/live/app.js';
import {
  HOLD_MAX,
  type LiveEntry,
  LiveModel,
  OTHER_TYPES,
  RING_MAX_BYTES,
  RING_MAX_EVENTS,
  TYPE_NAME_MAX,
  TYPES_MAX,
} from '../../../src/io/live/model.js';
import { type EventRow, eventLineFormatter } from '../../../src/render/event-line.js';

// The Ink app of `events tail`'s live view, rendered by ink-testing-library (100 columns) and driven through its
// stdin: the bounds on what it holds, and what each key does. Screens in a real terminal: test/terminal/live-view.

const NOW = Date.parse('2025-06-05T12:00:00Z');
type Status = { seen: number };

function entry(i: number, type = 'user.created', jsonBytes = 100): LiveEntry<EventRow> {
  const row: EventRow = { time: NOW - 1000 + i, type, id: `evt_${String(i).padStart(16, '0')}`, summary: `u${i}` };
  const json = Buffer.from(JSON.stringify({ type, n: i, pad: 'x'.repeat(Math.max(0, jsonBytes - 40)) }));
  return { row, kind: type, text: `${row.type} ${row.id} ${row.summary}`, json };
}

let unmount: (() => void) | undefined;
afterEach(() => {
  unmount?.();
  unmount = undefined;
});

function mount(rows = 24) {
  const calls = { quit: 0, interrupt: 0 };
  const model = new LiveModel<EventRow, Status>({
    lines: () => eventLineFormatter({ color: false, typeWidth: 12, now: () => NOW }),
    initial: { seen: 0 },
    columns: 100,
    rows,
    quit: () => calls.quit++,
    interrupt: () => calls.interrupt++,
  });
  const app = render(
    createElement(LiveApp<Status>, {
      model: model as LiveModel<unknown, Status>,
      statusLine: (s: Status) => `status ${s.seen}`,
      color: false,
    }),
  );
  unmount = app.unmount;
  const frame = () => app.lastFrame() ?? '';
  const lastLines = (n: number) => frame().split('\n').slice(-n).join('\n');
  const press = async (keys: string, ready: (frame: string) => boolean) => {
    app.stdin.write(keys);
    await vi.waitFor(() => expect(frame()).toSatisfy(ready), { timeout: 3000 });
  };
  return { model, app, frame, lastLines, press, calls };
}

describe('the live view app', () => {
  it('p holds events past the bound without showing the oldest, and says how many on resume', async () => {
    const { model, lastLines, press, frame, app } = mount();
    await press('p', (f) => f.endsWith('paused: 0 held · p resume · / filter · t type · i inspect · q quit'));
    model.add(Array.from({ length: HOLD_MAX + 3 }, (_, i) => entry(i)));
    model.status({ seen: HOLD_MAX + 3 });
    await vi.waitFor(() =>
      expect(lastLines(2)).toBe(
        'status 5003\npaused: 5,000 held · 3 not shown · p resume · / filter · t type · i inspect · q quit',
      ),
    );
    expect(frame()).not.toContain('evt_');
    // The held lines are written above the footer in one piece.
    app.stdin.write('p');
    await vi.waitFor(() => expect(app.frames.some((f) => f.startsWith('… 3 held'))).toBe(true));
    const lines = (app.frames.find((f) => f.startsWith('… 3 held')) ?? '').split('\n');
    expect(lines[0]).toBe('… 3 held events not shown');
    expect(lines[1]).toBe('── 2025-06-05 UTC (today) ──');
    expect(lines[2]).toBe('11:59:59  user.created  evt_0000000000000003  u3');
    expect(lines.filter((line) => line.includes('evt_')).length).toBe(HOLD_MAX);
  });

  it('keeps at most 500 events for the inspector', async () => {
    const { model, press } = mount();
    model.add(Array.from({ length: RING_MAX_EVENTS + 100 }, (_, i) => entry(i)));
    await press('i', (f) => /(^|\n)event 500 of 500 · ↑\/↓ select/.test(f));
  });

  it('keeps at most 8 MB of payloads for the inspector, the newest', async () => {
    const { model, press, frame } = mount();
    const size = 1024 * 1024;
    model.add(Array.from({ length: 20 }, (_, i) => entry(i, 'user.updated', size)));
    const kept = Math.floor(RING_MAX_BYTES / (size + 0));
    await press('\r', (f) => f.startsWith(`event ${kept} of ${kept} ·`) || f.includes(`\nevent ${kept} of ${kept} ·`));
    expect(frame()).toContain('"n": 19');
  });

  it('counts at most 256 types a server names, each cut to 128 characters, the rest as other types', () => {
    const { model } = mount();
    const long = 'x'.repeat(TYPE_NAME_MAX + 50);
    model.add([entry(0, long), entry(1, long)]);
    model.add(Array.from({ length: TYPES_MAX + 43 }, (_, i) => entry(i + 2, `type.${i}`)));
    expect(model.snapshot().types.length).toBe(TYPES_MAX);
    expect(model.snapshot().types[0]).toBe('x'.repeat(TYPE_NAME_MAX));
    model.close({ seen: TYPES_MAX + 45 });
    const counts = new Map(model.snapshot().final?.counts);
    expect(counts.size).toBe(TYPES_MAX + 1);
    expect(counts.get('x'.repeat(TYPE_NAME_MAX))).toBe(2);
    expect(counts.get(OTHER_TYPES)).toBe(44);
  });

  it('/ takes typed text only, Enter applies it to new events, Esc clears it', async () => {
    const { model, press, frame, lastLines } = mount();
    await press('/ad\x07a', (f) => f.endsWith('/ada▏ Enter apply · Esc clear'));
    await press('\r', (f) => f.endsWith('filter "ada" · Esc clear · p pause · / filter · t type · i inspect · q quit'));
    model.add([entry(1, 'user.created'), { ...entry(2, 'user.deleted'), text: 'user.deleted evt_2 ada' }]);
    await vi.waitFor(() => expect(frame()).toContain('user.deleted'));
    expect(frame()).not.toContain('evt_0000000000000001');
    await press('\x1b', (f) => f.endsWith('\np pause · / filter · t type · i inspect · q quit'));
    expect(lastLines(2)).toBe('status 0\np pause · / filter · t type · i inspect · q quit');
  });

  it('/ shows what was typed neutralised: a C1 control (CSI, U+009B) and a bidi override are shown escaped', async () => {
    const { press } = mount();
    await press('/\u009b2Jx\u202eab', (f) => f.endsWith('/\\x9b2Jx\\u202eab▏ Enter apply · Esc clear'));
    await press('\r', (f) => f.includes('filter "\\x9b2Jx\\u202eab" · Esc clear · p pause'));
  });

  it('a type of 100 KB is cut to the width in the t picker and in the footer once chosen', async () => {
    const { model, press, frame } = mount();
    const huge = `user.${'x'.repeat(100_000)}`;
    model.add([entry(1, huge), entry(2)]);
    const fits = (f: string) => f.split('\n').every((line) => line.length < 100);
    await press('t', (f) =>
      f.endsWith(`\ntype user.${'x'.repeat(41)}… (1/2) · ←/→ choose · Enter only this · Esc all`),
    );
    await press('\r', (f) => f.includes(`\nonly user.${'x'.repeat(38)}… · Esc clear · p pause · / filter`));
    expect(fits(frame())).toBe(true);
  });

  it('q asks the tail to stop, Ctrl-C interrupts it; no key does anything once stopped', async () => {
    const { model, app, calls, frame } = mount();
    app.stdin.write('q');
    await vi.waitFor(() => expect(calls.quit).toBe(1));
    app.stdin.write('\x03');
    await vi.waitFor(() => expect(calls.interrupt).toBe(1));
    model.add([entry(1), entry(2, 'user.deleted'), entry(3)]);
    model.close({ seen: 3 });
    // The last frame is the last status alone: the counts go below the view once it has ended (startLiveTail).
    await vi.waitFor(() => expect(frame().endsWith('status 3')).toBe(true));
    expect(frame()).not.toContain('user.deleted');
    app.stdin.write('q');
    app.stdin.write('i');
    expect(calls.quit).toBe(1);
  });
});
