import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the rules are a plain module of the repo, without types
import { APART as apart, FLOORS as floors } from '../.dependency-cruiser.mjs';

// The floors of src/ (docs/architecture.md, "Layout and floors") as dependency-cruiser checks them: the rules in
// .dependency-cruiser.mjs, read by dependency-cruiser itself as `npm run floors` reads them.

interface Floor {
  readonly floor: string;
  readonly rooms: readonly string[];
}

const FLOORS: readonly Floor[] = floors;
const APART: Floor = apart;
const ROOT = join(import.meta.dirname, '..');

let options: ICruiseOptions;
beforeAll(async () => {
  options = await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.mjs'));
});

/** What the rules found in the `src/` of `baseDir`, one line each: the rule, the import, and a circle's way round. */
async function violations(baseDir: string): Promise<string[]> {
  const result = await cruise(
    ['src'],
    { ...options, baseDir, validate: true },
    {},
    { tsConfig: extractTSConfig(join(baseDir, 'tsconfig.json')) },
  );
  if (typeof result.output === 'string') throw new Error('dependency-cruiser gave text, not its result');
  const { modules, summary } = result.output;
  const reached = (v: IViolation) =>
    modules
      .find((m) => m.source === v.from)
      ?.reaches?.filter((r) => r.asDefinedInRule === v.rule.name)
      .flatMap((r) => r.modules.map((m) => m.source)) ?? [];
  return summary.violations.map((v) => line(v, reached(v))).sort();
}

/** A violation as one line: an import (and a circle's way round), a module, or what a module reaches against a rule. */
function line(v: IViolation, reached: readonly string[]): string {
  if (v.type === 'dependency') return `${v.rule.name}: ${v.from} → ${v.to}`;
  if (v.cycle) return `${v.rule.name}: ${v.from} → ${v.to} (${v.cycle.map((step) => step.name).join(' → ')})`;
  if (reached.length > 0) return `${v.rule.name}: ${v.from} reaches ${[...reached].sort().join(', ')}`;
  return `${v.rule.name}: ${v.from}`;
}

describe('src/', () => {
  it('keeps to its floors: no circle, no import up a floor or against a rule, every module on a floor', async () => {
    expect(await violations(ROOT)).toEqual([]);
  });

  it('has the floors of the map, in its order, with the same rooms', () => {
    const map = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    expect(floorsOfTheMap(map)).toEqual([...FLOORS, APART].map(({ floor, rooms }) => ({ floor, rooms: [...rooms] })));
  });
});

/**
 * The floors drawn in the map's layout: a `── name ──` line opens a floor, and each `├── name` line after it names
 * its rooms (`errors.ts  clock.ts`, `help/  completion/`), up to the first word that is not a room. A sub-folder
 * drawn on its own line (`commands/<group>/`) stands for its room (`commands/`).
 */
function floorsOfTheMap(map: string): Floor[] {
  const layout = /## Layout and floors\n[\s\S]*?```text\n([\s\S]*?)```/.exec(map)?.[1] ?? '';
  const drawn: { floor: string; rooms: string[] }[] = [];
  const placed = [...FLOORS, APART].flatMap((f) => f.rooms);
  for (const text of layout.split('\n')) {
    const opens = /^│ {2}── (.+) ──$/.exec(text);
    if (opens) drawn.push({ floor: opens[1] ?? '', rooms: [] });
    const entry = /^[├└]── (.*)$/.exec(text);
    if (!entry) continue;
    for (const word of (entry[1] ?? '').split(/\s+/)) {
      if (!/^[\w.<>/-]+(\/|\.ts)$/.test(word)) break;
      const name = placed.find((r) => word === r || (r.endsWith('/') && word.startsWith(r))) ?? word;
      const rooms = drawn.at(-1)?.rooms;
      if (rooms && !rooms.includes(name)) rooms.push(name);
    }
  }
  return drawn;
}

describe('the rules', () => {
  // A small src/ that breaks every rule once, so that a rule that stops working fails here.
  const FIXTURE: Record<string, string> = {
    'domain/vocabulary.ts': "export const WORD = 'w';",
    'errors.ts': "import { CLOCK } from './clock.js';\nexport const ERR = CLOCK;",
    'clock.ts': "import type { Now } from './util/now.js';\nexport const CLOCK: Now = 1;",
    'util/now.ts': "import { ERR } from '../errors.js';\nexport type Now = number;\nexport const N = ERR;",
    'config/store.ts': "export const STORE = 's';",
    'util/reach.ts': "import { STORE } from '../config/store.js';\nexport const REACH = STORE;",
    'api/http.ts': "import { ROW } from '../render/table.js';\nexport const HTTP = ROW;",
    'render/table.ts': "export const ROW = 'r';",
    'api/retry.ts': "import { SUB } from '../events/stream/subscription.js';\nexport const RETRY = SUB;",
    'events/stream/subscription.ts': 'export const SUB = 1;',
    'io/printer.ts': "export async function print() { return import('../cli/host.js'); }",
    'cli/host.ts': "import { print } from '../io/printer.js';\nexport const HOST = print;",
    'events/pipeline/recorded-file.ts': "import { MAX } from '../forward/forwarder.js';\nexport const R = MAX;",
    'events/forward/forwarder.ts': 'export const MAX = 1;',
    'mcp/tools.ts': "import { POLICY_ID_MAX } from '../commands/policies/options.js';\nexport const T = POLICY_ID_MAX;",
    'commands/policies/options.ts': 'export const POLICY_ID_MAX = 26;',
    'commands/users/run.ts': "import { POLICY_ID_MAX } from '../policies/options.js';\nexport const U = POLICY_ID_MAX;",
    'emulator/server.ts': [
      "import { HOST } from '../cli/host.js';",
      "import { REACH } from '../util/reach.js';",
      "import { WORD } from '../domain/vocabulary.js';",
      'export const S = [HOST, REACH, WORD];',
    ].join('\n'),
    'program.ts': "export async function emulator() { return import('./emulator/server.js'); }",
    'main.ts': "import { NEW } from './newfolder/thing.js';\nexport const M = NEW;",
    'newfolder/thing.ts': "export const NEW = 'n';",
    'lonely/alone.ts': "export const ALONE = 'a';",
  };
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svcadm-floors-'));
    for (const [file, text] of Object.entries(FIXTURE)) {
      mkdirSync(dirname(join(dir, 'src', file)), { recursive: true });
      writeFileSync(join(dir, 'src', file), `${text}\n`);
    }
    writeFileSync(join(dir, 'tsconfig.json'), readFileSync(join(ROOT, 'tsconfig.json')));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('catch each way of breaking the floors', async () => {
    expect(await violations(dir)).toEqual([
      'emulator-apart: src/emulator/server.ts reaches src/cli/host.ts, src/config/store.ts, src/io/printer.ts',
      'emulator-apart: src/emulator/server.ts → src/cli/host.ts',
      'emulator-apart: src/program.ts → src/emulator/server.ts',
      'groups-apart: src/commands/users/run.ts → src/commands/policies/options.ts',
      'mcp-not-commands: src/mcp/tools.ts → src/commands/policies/options.ts',
      'no-circle: src/cli/host.ts → src/io/printer.ts (src/io/printer.ts → src/cli/host.ts)',
      'no-circle: src/clock.ts → src/util/now.ts (src/util/now.ts → src/errors.ts → src/clock.ts)',
      'no-room-loop: src/cli → src/io (src/io → src/cli)',
      'no-room-loop: src/io → src/cli (src/cli → src/io)',
      'not-on-a-floor: src/lonely/alone.ts',
      'not-on-a-floor: src/main.ts → src/newfolder/thing.ts',
      'service-and-text-apart: src/api/http.ts → src/render/table.ts',
      'stream-above-api: src/api/retry.ts → src/events/stream/subscription.ts',
      'up-a-floor: src/events/pipeline/recorded-file.ts → src/events/forward/forwarder.ts',
      'up-a-floor: src/io/printer.ts → src/cli/host.ts',
      'up-a-floor: src/mcp/tools.ts → src/commands/policies/options.ts',
      'up-a-floor: src/util/reach.ts → src/config/store.ts',
    ]);
  });
});
