import type { ApiClient } from '../../api/client.js';
import { type KindContent, type KindRequest, readTenantKind } from '../../api/tenant-configuration.js';
import type { Invocation } from '../../cli/host.js';
import type { Tenants } from '../../cli/tenants.js';
import { compareItems, countChanges, type Difference } from '../../domain/tenant-configuration.js';
import { DifferencesFound, UsageError } from '../../errors.js';
import { isSnapshotSide, readSnapshotKind } from '../../io/snapshot-folder.js';
import {
  type AgainstRow,
  againstTable,
  differencesTable,
  differencesText,
  type UnavailableKind,
} from '../../render/differences.js';
import { Services } from '../../services.js';
import type { DiffOptions, UserPair } from './options.js';

/** What one side is read for: each kind compared, and the permissions of each user pair. */
interface Scope {
  /** The kinds compared, in order; `permissions` once, whatever the pairs. */
  readonly kinds: DiffOptions['kinds'];
  readonly users: readonly UserPair[];
}

/** A side's contents: one per kind, the permissions one per user pair. */
type SideContents = Map<string, KindContent>;

function requestsOf(scope: Scope, side: 'left' | 'right'): Array<[string, KindRequest]> {
  return scope.kinds.flatMap(
    (kind): Array<[string, KindRequest]> =>
      kind === 'permissions'
        ? scope.users.map((pair) => [pairLabel(pair), { kind, userId: pair[side] }])
        : [[kind, { kind }]],
  );
}

/** A user pair as its differences' keys start: the id, or `<left-id>=<right-id>` when they differ. */
function pairLabel(pair: UserPair): string {
  return pair.left === pair.right ? pair.left : `${pair.left}=${pair.right}`;
}

async function readLive(api: ApiClient, scope: Scope, side: 'left' | 'right'): Promise<SideContents> {
  const requests = requestsOf(scope, side);
  const contents = await Promise.all(requests.map(([, request]) => readTenantKind(api, request)));
  return new Map(requests.map(([label], i) => [label, contents[i] as KindContent]));
}

function readFolder(folder: string, scope: Scope, side: 'left' | 'right'): SideContents {
  return new Map(requestsOf(scope, side).map(([label, request]) => [label, readSnapshotKind(folder, request)]));
}

/** A side named on the line: a snapshot folder (a `/`, or an existing folder), else a profile, taken as a unit. */
async function readSide(inv: Invocation, side: string, scope: Scope, which: 'left' | 'right'): Promise<SideContents> {
  if (isSnapshotSide(side)) return readFolder(side, scope, which);
  const services = new Services(inv.ctx, inv.globals, inv.io, inv.services.secrets, side);
  try {
    return await readLive(services.api(), scope, which);
  } finally {
    services.close();
  }
}

interface Comparison {
  differences: Difference[];
  unavailable: UnavailableKind[];
}

function compare(scope: Scope, left: SideContents, right: SideContents, ignore: ReadonlySet<string>): Comparison {
  const differences: Difference[] = [];
  const unavailable: UnavailableKind[] = [];
  for (const kind of scope.kinds) {
    const labels = kind === 'permissions' ? scope.users.map(pairLabel) : [kind];
    for (const label of labels) {
      const l = left.get(label) ?? { items: [] };
      const r = right.get(label) ?? { items: [] };
      if ('unavailable' in l || 'unavailable' in r) {
        unavailable.push({
          kind,
          ...('unavailable' in l ? { left: l.unavailable } : {}),
          ...('unavailable' in r ? { right: r.unavailable } : {}),
        });
        continue;
      }
      const found = compareItems(kind, l.items, r.items, ignore);
      differences.push(...(kind === 'permissions' ? found.map((d) => ({ ...d, key: `${label} ${d.key}` })) : found));
    }
  }
  return { differences, unavailable };
}

function unavailableNotice(u: UnavailableKind): string {
  const sides = [
    ...(u.left === undefined ? [] : [`on the left (${u.left})`]),
    ...(u.right === undefined ? [] : [`on the right (${u.right})`]),
  ];
  return `${u.kind}: unavailable ${sides.join(' and ')}; not compared`;
}

/** The differences as asked: the grouped listing for a person, a table when asked for, else the document. */
async function printDifferences(inv: Invocation, left: string, right: string, scope: Scope, result: Comparison) {
  const { differences, unavailable } = result;
  if (inv.globals.format === 'table' && !inv.globals.formatChosen) {
    await inv.io.write(differencesText(scope.kinds, differences, unavailable));
    return;
  }
  for (const u of unavailable) inv.io.notice(unavailableNotice(u));
  await inv.out.page({ left, right, differences }, differences, differencesTable, {
    empty: 'The tenants are alike.',
  });
}

/** `svcadm diff <left> <right>`: exit 10 when they differ, 0 when alike; a side that cannot be read, its own code. */
export async function runDiff(inv: Invocation, opts: DiffOptions): Promise<void> {
  if (opts.against !== undefined) {
    throw new UsageError(
      '--against compares each tenant of --profiles with the baseline',
      "add --profiles '<patterns>'",
    );
  }
  const left = opts.left ?? '';
  const right = opts.right ?? '';
  const scope: Scope = { kinds: opts.kinds, users: opts.users };
  const [l, r] = await Promise.all([readSide(inv, left, scope, 'left'), readSide(inv, right, scope, 'right')]);
  const result = compare(scope, l, r, new Set(opts.ignore));
  await printDifferences(inv, left, right, scope, result);
  if (result.differences.length > 0) throw new DifferencesFound();
}

/**
 * `svcadm diff --against <baseline> --profiles …`: the baseline read once (it failing: its own code), then each
 * tenant compared with it, a row per kind with the counts; exit 9 (or the common code) when tenants failed, else
 * 10 when any differs, else 0.
 */
export async function runDiffAgainst(tenants: Tenants, opts: DiffOptions): Promise<void> {
  const baseline = opts.against ?? '';
  const scope: Scope = { kinds: opts.kinds, users: opts.users };
  const base = await readSide(tenants.inv, baseline, scope, 'left');
  const ignore = new Set(opts.ignore);
  let differs = false;
  await tenants.each(async (inv) => {
    const profile = inv.services.tenant ?? '';
    const result = compare(scope, base, await readLive(inv.services.api(), scope, 'right'), ignore);
    if (result.differences.length > 0) differs = true;
    if (inv.globals.format === 'table' || inv.globals.format === 'wide') {
      const rows: AgainstRow[] = scope.kinds.map((kind) => {
        const gone = result.unavailable.find((u) => u.kind === kind);
        if (gone)
          return {
            profile,
            kind,
            added: undefined,
            removed: undefined,
            changed: undefined,
            note: unavailableNotice(gone),
          };
        return { kind, ...countChanges(result.differences.filter((d) => d.kind === kind)) };
      });
      await inv.out.one(rows, () => againstTable(rows));
      return;
    }
    for (const u of result.unavailable) inv.io.notice(unavailableNotice(u));
    await inv.out.page(
      { left: baseline, right: profile, differences: result.differences },
      result.differences,
      differencesTable,
    );
  });
  if (differs) throw new DifferencesFound();
}
