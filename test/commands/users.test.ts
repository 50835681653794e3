import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseUserPermissionsOptions } from '../../src/commands/users/options.js';
import { summarizeSources } from '../../src/commands/users/run.js';
import type { UserPermission, UserPermissionTotals } from '../../src/domain/resources.js';
import { jsonDocument, jsonLine } from '../../src/render/json.js';
import { neutralize } from '../../src/text/sanitize.js';
import { VirtualClock } from '../helpers/clock.js';
import { startTestEmulator, type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { type Recorded, startLoopback } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;

withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' } });

const BULK = 1200; // permissions of the emulator's bulk user
const userId = () => emu.fixtures.userId;
const bulkId = () => emu.fixtures.bulkUserId;
const pathOf = (id: string) => `/api/v2/users/${encodeURIComponent(id)}/permissions`;

async function sent(id: string): Promise<Array<{ query: string; status: number | undefined }>> {
  const { requests } = await emu.requests();
  return requests.filter((r) => r.path === pathOf(id)).map((r) => ({ query: r.query, status: r.status }));
}

async function body(id: string, args: string[]): Promise<UserPermission[] | UserPermissionTotals> {
  const r = await runCli(['users', 'permissions', id, ...args, '-o', 'json'], { env });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as UserPermission[] | UserPermissionTotals;
}

async function items(id: string, args: string[] = []): Promise<UserPermission[]> {
  const b = await body(id, args);
  return Array.isArray(b) ? b : b.permissions;
}

/** Every permission of a user, fetched here page by page at 50 (the emulator's cap, as a public-cloud tenant's). */
async function everything(id: string): Promise<UserPermission[]> {
  const out: UserPermission[] = [];
  for (let page = 0; ; page++) {
    const batch = await items(id, ['--page', String(page), '--per-page', '50']);
    out.push(...batch);
    if (batch.length < 50) return out;
  }
}

/** The expected plain table, derived here from the JSON items. */
function table(list: UserPermission[]): string {
  const columns = ['PERMISSION', 'API', 'IDENTIFIER', 'SOURCE', 'DESCRIPTION'];
  const rows = list.map((p) => [
    p.permission_name ?? '-',
    p.resource_server_name ?? '-',
    p.resource_server_identifier ?? '-',
    [
      ...new Set(
        (p.sources as Array<{ source_type: string; source_name: string }>).map((s) =>
          s.source_type === 'DIRECT' ? 'direct' : `role ${s.source_name}`,
        ),
      ),
    ].join(', '),
    neutralize(p.description ?? '-'),
  ]);
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(columns), ...rows.map(line)].join('\n')}\n`;
}

describe('users permissions: invalid input exits 2 and sends nothing', () => {
  const cases: Array<[string[], string]> = [
    [['--page=-1'], "--page must be a whole number of at least 0, got '-1'"],
    [['--page', '1.5'], "--page must be a whole number of at least 0, got '1.5'"],
    [['--page', 'two'], "--page must be a whole number of at least 0, got 'two'"],
    [['--per-page', '0'], '--per-page must be from 1 to 100, got 0'],
    [['--per-page', '101'], '--per-page must be from 1 to 100, got 101'],
    [['--per-page', '1e2'], "--per-page must be a whole number from 1 to 100, got '1e2'"],
    [['--all', '--page', '0'], '--all cannot be combined with --page — --all starts at page 0 and fetches every page'],
    [['--all', '--concurrency', '0'], '--concurrency must be from 1 to 16, got 0'],
    [['--all', '--concurrency', '17'], '--concurrency must be from 1 to 16, got 17'],
  ];
  for (const [args, message] of cases) {
    it(args.join(' '), async () => {
      const r = await runCli(['users', 'permissions', 'db|user-0001', ...args], { env });
      expect(r).toEqual({ code: 2, stdout: '', stderr: `svcadm: ${message}\n` });
      const { counters } = await emu.requests();
      expect(counters.interfaceRequests + counters.tokenRequests).toBe(0);
    });
  }

  it('an empty user id', async () => {
    const r = await runCli(['users', 'permissions', ''], { env });
    expect(r).toEqual({ code: 2, stdout: '', stderr: 'svcadm: the user id must not be empty\n' });
    expect((await emu.requests()).counters.interfaceRequests).toBe(0);
  });

  it('a missing user id', async () => {
    const r = await runCli(['users', 'permissions'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("svcadm: missing required argument 'user-id' — see 'svcadm users permissions --help'\n");
  });

  it('parses the options with their defaults', () => {
    expect(parseUserPermissionsOptions('u', {})).toEqual({
      userId: 'u',
      page: undefined,
      perPage: undefined,
      includeTotals: false,
      all: false,
      concurrency: 8,
    });
    expect(parseUserPermissionsOptions('u', { page: '0', perPage: '100', includeTotals: true })).toMatchObject({
      page: 0,
      perPage: 100,
      includeTotals: true,
    });
  });
});

describe('users permissions: one page', () => {
  it('prints the bare array as sent, with the user id percent-encoded in the path', async () => {
    const r = await runCli(['users', 'permissions', userId(), '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const list = JSON.parse(r.stdout) as UserPermission[];
    expect(Array.isArray(list)).toBe(true);
    expect(list).toHaveLength(10);
    expect(r.stdout).toBe(jsonDocument(list));
    expect(await sent(userId())).toEqual([{ query: '', status: 200 }]);
    expect(pathOf(userId())).toBe('/api/v2/users/db%7Cuser-0001/permissions');
  });

  it('sends page, per_page and include_totals, and prints the object as sent', async () => {
    const b = (await body(bulkId(), ['--page', '2', '--per-page', '3', '--include-totals'])) as UserPermissionTotals;
    expect(b).toMatchObject({ start: 6, limit: 3, total: BULK });
    expect(b.permissions).toHaveLength(3);
    expect(await sent(bulkId())).toEqual([{ query: 'page=2&per_page=3&include_totals=true', status: 200 }]);
  });

  it('prints one permission per line under -o ndjson, with or without totals, and that more exist on stderr', async () => {
    const expected = await items(bulkId(), ['--per-page', '4']);
    const rest = (totals: string, count: string) =>
      `more results: printed ${count}; next page: svcadm --domain ${emu.url} -o ndjson users permissions 'db|user-bulk' --page 1 --per-page 4${totals}; every page: svcadm --domain ${emu.url} -o ndjson users permissions 'db|user-bulk' --all\n`;
    for (const [extra, stderr] of [
      [[], rest('', '4, more may exist')],
      [['--include-totals'], rest(' --include-totals', `4 of ${BULK}`)],
    ] as const) {
      const r = await runCli(['users', 'permissions', bulkId(), '--per-page', '4', ...extra, '-o', 'ndjson'], { env });
      expect(r).toEqual({ code: 0, stderr, stdout: expected.map((p) => jsonLine(p)).join('') });
    }
  });

  it('prints a table on a terminal, with the next page on stderr', async () => {
    const expected = await items(bulkId(), ['--per-page', '3']);
    const r = await runCli(['users', 'permissions', bulkId(), '--per-page', '3'], {
      env,
      tty: { stdout: true },
      columns: 200,
    });
    expect(r).toEqual({
      code: 0,
      stdout: table(expected),
      stderr: `Next page: svcadm --domain ${emu.url} users permissions 'db|user-bulk' --page 1 --per-page 3\n`,
    });
  });

  it('summarises where each permission comes from and neutralises service text', async () => {
    const expected = await items(userId());
    const r = await runCli(['users', 'permissions', userId()], { env, tty: { stdout: true }, columns: 200 });
    expect(r.stdout).toBe(table(expected));
    expect(r.stdout).toContain('role Order Manager, role Viewer');
    expect(r.stdout).toContain('Act as any user corp-\\x1b[31mred\\x1b[0m-\\u202eexe.txt\\u202c');
    expect(r.stdout).not.toMatch(/[\u001b\u202e]/);
    expect(r.stderr).toBe(''); // 10 permissions: a short page, so no hint
  });

  it('hints from the totals: more after a middle page, none after the last', async () => {
    const middle = await runCli(
      ['users', 'permissions', userId(), '--per-page', '4', '--page', '1', '--include-totals'],
      {
        env,
        tty: { stdout: true },
      },
    );
    expect(middle.stderr).toBe(
      `Next page: svcadm --domain ${emu.url} users permissions 'db|user-0001' --page 2 --per-page 4 --include-totals\n`,
    );
    const last = await runCli(
      ['users', 'permissions', userId(), '--per-page', '5', '--page', '1', '--include-totals'],
      {
        env,
        tty: { stdout: true },
      },
    );
    expect(last.code).toBe(0);
    expect(last.stderr).toBe('');
  });

  it('hints after a full page of the service default size (api-notes: half the cap, 25 on a public cloud)', async () => {
    const r = await runCli(['users', 'permissions', bulkId(), '-o', 'table'], { env });
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(26);
    expect(r.stderr).toBe(`Next page: svcadm --domain ${emu.url} -o table users permissions 'db|user-bulk' --page 1\n`);
  });

  it('exits 5 for an unknown user', async () => {
    const r = await runCli(['users', 'permissions', 'db|nobody'], { env, tty: { stdout: true } });
    expect(r).toEqual({ code: 5, stdout: '', stderr: 'svcadm: user db|nobody not found: The user does not exist.\n' });
    const j = await runCli(['users', 'permissions', 'db|nobody', '-o', 'ndjson'], { env });
    expect(j.stderr).toBe(
      '{"error":{"status":404,"code":"inexistent_user","message":"user db|nobody not found: The user does not exist.","exit_code":5}}\n',
    );
  });
});

describe('users permissions --all against the emulator', () => {
  it('prints one flat array of every permission in order: a totals page asked at 100, the rest at the limit served (50)', async () => {
    const expected = await everything(bulkId());
    expect(expected).toHaveLength(BULK);
    await emu.clearRequests();
    const r = await runCli(['users', 'permissions', bulkId(), '--all', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(jsonDocument(expected));
    const queries = (await sent(bulkId())).map((s) => s.query);
    expect(queries[0]).toBe('page=0&per_page=100&include_totals=true');
    expect(queries.slice(1).sort()).toEqual(Array.from({ length: 23 }, (_, i) => `page=${i + 1}&per_page=50`).sort());
  });

  it('returns every item once, in order, while the service answers 429 bursts and 5xx', async () => {
    const expected = await everything(bulkId());
    await emu.clearRequests();
    // The totals page passes (skip: 1); the burst then lands on the pages fetched concurrently.
    await emu.failNext({ path: '/users', status: 429, retryAfter: 0, count: 4, skip: 1 });
    await emu.failNext({ path: '/users', status: 503, count: 2 });
    await emu.failNext({ path: '/users', status: 502, count: 1 });
    const r = await runCli(['users', 'permissions', bulkId(), '--all', '--per-page', '50', '-o', 'ndjson'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(expected.map((p) => jsonLine(p)).join(''));
    const statuses = (await sent(bulkId())).map((s) => s.status);
    expect(statuses[0]).toBe(200);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    expect(statuses.filter((s) => s !== undefined && s >= 500)).toHaveLength(3);
    expect(statuses.filter((s) => s === 200)).toHaveLength(24);
  });

  it('prints every row in the table, no hint, and progress on a terminal', async () => {
    const expected = await everything(userId());
    const r = await runCli(['users', 'permissions', userId(), '--all', '--per-page', '4'], {
      env,
      tty: { stdout: true, stderr: true },
      columns: 200,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(table(expected));
    expect(r.stderr).toBe('\r\x1b[2Kfetched 4 of 10\r\x1b[2Kfetched 8 of 10\r\x1b[2Kfetched 10 of 10\r\x1b[2K');
  });

  it('prints an empty array for a user without permissions', async () => {
    const local = await startLoopback([serve([])]);
    try {
      const r = await runCli(['users', 'permissions', 'u1', '--all', '-o', 'json'], {
        env: { ...env, SVCADM_DOMAIN: local.url, SVCADM_TOKEN: 't' },
      });
      expect(r).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
      expect(local.requests.map((q) => q.url)).toEqual([
        '/api/v2/users/u1/permissions?page=0&per_page=100&include_totals=true',
      ]);
    } finally {
      await local.close();
    }
  });

  it('stops with exit 5 when the user disappears', async () => {
    const r = await runCli(['users', 'permissions', 'db|gone', '--all', '-o', 'ndjson'], { env });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
  });
});

/** A fake permissions list served by page, answering through `hold` when given. */
function perm(i: number): UserPermission {
  return {
    sources: [{ source_id: '', source_name: '', source_type: 'DIRECT' }],
    resource_server_identifier: 'https://api.example.com/x',
    permission_name: `p:${String(i).padStart(4, '0')}`,
    resource_server_name: 'X',
    description: `permission ${i}`,
  };
}

function serve(
  list: UserPermission[],
  opts: {
    totals?: boolean;
    /** Serves at most this many per page whatever is asked, as a public-cloud tenant does (50). */
    cap?: number;
    /** The total to claim instead of the list's length. */
    total?: number;
    headers?: Record<string, string>;
    hold?: (req: Recorded, respond: () => void) => void;
  } = {},
) {
  return (req: Recorded, res: ServerResponse) => {
    const url = new URL(req.url, 'http://x');
    const page = Number(url.searchParams.get('page') ?? 0);
    const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 50), opts.cap ?? 100);
    const slice = list.slice(page * perPage, page * perPage + perPage);
    const withTotals = url.searchParams.get('include_totals') === 'true' && opts.totals !== false;
    const payload = withTotals
      ? { start: page * perPage, limit: perPage, total: opts.total ?? list.length, permissions: slice }
      : slice;
    const respond = () => {
      res.writeHead(200, { 'content-type': 'application/json', ...opts.headers });
      res.end(JSON.stringify(payload));
    };
    if (opts.hold) opts.hold(req, respond);
    else respond();
  };
}

describe('users permissions --all: concurrency, order and de-duplication', () => {
  const localEnv = (url: string) => ({ ...env, SVCADM_DOMAIN: url, SVCADM_TOKEN: 't' });
  const list = Array.from({ length: 25 }, (_, i) => perm(i));

  // The default (docs/decisions/2026-11-23-offset-pages-in-flight-8.md), written out: a test that read the constant
  // would pass with any value.
  const DEFAULT_IN_FLIGHT = 8;
  const nine = Array.from({ length: 45 }, (_, i) => perm(i)); // page 0, then 8 pages of 5

  it.each([
    ['users permissions --all', ['users', 'permissions', 'u', '--all', '--per-page', '5', '-o', 'ndjson']],
    ['api --paginate', ['api', '/users/u/permissions', '-F', 'per_page=5', '--paginate', '-o', 'ndjson']],
  ])(
    '%s keeps 8 pages in flight by default and prints in order though answers come back reversed',
    async (_name, argv) => {
      const held: Array<() => void> = [];
      let inFlight = 0;
      let maxInFlight = 0;
      const local = await startLoopback([
        serve(nine, {
          hold: (req, respond) => {
            const done = () => {
              inFlight--;
              respond();
            };
            if (req.url.includes('include_totals')) return respond();
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            held.push(done);
            // Answered only once all eight are waiting, last first: fewer in flight never gets an answer.
            if (held.length === DEFAULT_IN_FLIGHT) for (const answer of held.splice(0).reverse()) answer();
          },
        }),
      ]);
      try {
        const r = await runCli(argv, { env: localEnv(local.url) });
        expect(r).toEqual({ code: 0, stdout: nine.map((p) => jsonLine(p)).join(''), stderr: '' });
        expect(maxInFlight).toBe(DEFAULT_IN_FLIGHT);
        expect(local.requests).toHaveLength(9);
      } finally {
        await local.close();
      }
    },
  );

  it('fetches one page at a time with --concurrency 1', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const local = await startLoopback([
      serve(list, {
        hold: (_req, respond) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          setImmediate(() => {
            inFlight--;
            respond();
          });
        },
      }),
    ]);
    try {
      const r = await runCli(
        ['users', 'permissions', 'u', '--all', '--per-page', '5', '--concurrency', '1', '-o', 'ndjson'],
        { env: localEnv(local.url) },
      );
      expect(r.stdout).toBe(list.map((p) => jsonLine(p)).join(''));
      expect(maxInFlight).toBe(1);
      expect(local.requests).toHaveLength(5);
    } finally {
      await local.close();
    }
  });

  it('eases off to one request at a time while X-RateLimit-Remaining is low', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const local = await startLoopback([
      serve(list, {
        headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '2' },
        hold: (_req, respond) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          setImmediate(() => {
            inFlight--;
            respond();
          });
        },
      }),
    ]);
    try {
      const r = await runCli(['users', 'permissions', 'u', '--all', '--per-page', '5', '-o', 'ndjson', '--debug'], {
        env: localEnv(local.url),
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(list.map((p) => jsonLine(p)).join(''));
      // The first page said "2 left": the second batch already goes one by one.
      expect(maxInFlight).toBe(1);
    } finally {
      await local.close();
    }
  });

  it('prints a permission repeated across pages once', async () => {
    // Page 1 starts with the last item of page 0 again, as when an item is inserted between requests.
    const pages = [list.slice(0, 5), [list[4], ...list.slice(5, 9)], list.slice(9, 12)] as UserPermission[][];
    const local = await startLoopback([
      (req, res) => {
        const url = new URL(req.url, 'http://x');
        const page = Number(url.searchParams.get('page'));
        const slice = pages[page] ?? [];
        const payload = page === 0 ? { start: 0, limit: 5, total: 13, permissions: slice } : slice;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      },
    ]);
    try {
      const r = await runCli(['users', 'permissions', 'u', '--all', '--per-page', '5', '-o', 'ndjson'], {
        env: localEnv(local.url),
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        list
          .slice(0, 12)
          .map((p) => jsonLine(p))
          .join(''),
      );
    } finally {
      await local.close();
    }
  });

  it('goes on page by page until a short page when the service ignores include_totals', async () => {
    const local = await startLoopback([serve(list, { totals: false })]);
    try {
      const r = await runCli(['users', 'permissions', 'u', '--all', '--per-page', '10', '-o', 'json'], {
        env: localEnv(local.url),
      });
      expect(r).toEqual({ code: 0, stdout: jsonDocument(list), stderr: '' });
      expect(local.requests.map((q) => new URL(q.url, 'http://x').searchParams.get('page'))).toEqual(['0', '1', '2']);
    } finally {
      await local.close();
    }
  });
});

describe('users permissions against a tenant that caps pages (api-notes: the page size you ask for is not always the one you get)', () => {
  const localEnv = (url: string) => ({ ...env, SVCADM_DOMAIN: url, SVCADM_TOKEN: 't' });
  const list = Array.from({ length: 200 }, (_, i) => perm(i));
  const pagesAsked = (requests: Recorded[]) =>
    requests.map((q) => new URL(q.url, 'http://x').searchParams).map((p) => `${p.get('page')}/${p.get('per_page')}`);

  it('--all plans the pages from the limit the service returns: all 200, not 100', async () => {
    const local = await startLoopback([serve(list, { cap: 50 })]);
    try {
      const r = await runCli(['users', 'permissions', 'u', '--all', '-o', 'ndjson'], { env: localEnv(local.url) });
      expect(r).toEqual({ code: 0, stdout: list.map((p) => jsonLine(p)).join(''), stderr: '' });
      expect(pagesAsked(local.requests)).toEqual(['0/100', '1/50', '2/50', '3/50']);
    } finally {
      await local.close();
    }
  });

  it('--all that ends short of the total says so with the numbers and exits 7', async () => {
    const local = await startLoopback([serve(list.slice(0, 150), { cap: 50, total: 200 })]);
    try {
      const r = await runCli(['users', 'permissions', 'u', '--all', '-o', 'ndjson'], { env: localEnv(local.url) });
      expect(r.code).toBe(7);
      expect(r.stdout).toBe(
        list
          .slice(0, 150)
          .map((p) => jsonLine(p))
          .join(''),
      );
      expect(r.stderr).toBe(
        'incomplete: printed 150 of 200\n' +
          '{"error":{"status":null,"code":"list_changed","message":"the service said there are 200 permissions but sent 150: 50 missing (the list may have changed while paging; run again)","exit_code":7}}\n',
      );
    } finally {
      await local.close();
    }
  });

  it('--all against a total that is a lie stops after 3 empty pages with exit 7', async () => {
    const local = await startLoopback([serve(list.slice(0, 10), { cap: 50, total: 1e12 })]);
    try {
      const r = await runCli(['users', 'permissions', 'u', '--all', '--concurrency', '1'], {
        env: localEnv(local.url),
      });
      expect(r.code).toBe(7);
      expect(r.stderr).toBe(
        'incomplete: printed 0 of 1000000000000\n' +
          'svcadm: malformed answer from the service: 3 pages in a row with nothing new, after 10 of the 1000000000000 permissions it announced\n',
      );
      expect(local.requests.length).toBeLessThanOrEqual(6);
    } finally {
      await local.close();
    }
  });

  it('one page served at the cap still tells how to get the next one', async () => {
    const local = await startLoopback([serve(list, { cap: 50 })]);
    try {
      const r = await runCli(['users', 'permissions', 'u', '--per-page', '100', '-o', 'table'], {
        env: localEnv(local.url),
      });
      expect(r.code).toBe(0);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(51);
      expect(r.stderr).toBe(
        `Next page: svcadm --domain ${local.url} -o table users permissions u --page 1 --per-page 100\n`,
      );
    } finally {
      await local.close();
    }
  });
});

describe('users permissions --all under the tenant rate limit, at the default concurrency', () => {
  it('never sends more at once than the bucket holds: a 429 only where the bucket runs dry, waited out as asked', async () => {
    // A bucket of 10 refilled at 10 a second on the CLI's own clock: it refills only while svcadm waits.
    const clock = new VirtualClock();
    const limited = await startTestEmulator({ eventRate: 0, rateLimit: 10, now: () => clock.now() });
    try {
      const r = await runCli(['users', 'permissions', limited.fixtures.bulkUserId, '--all', '-o', 'ndjson'], {
        env: { ...limited.env, NO_COLOR: '1' },
        clock,
      });
      const statuses = (await limited.requests()).requests
        .filter((q) => q.path === pathOf(limited.fixtures.bulkUserId))
        .map((q) => q.status);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      // Both emulators are seeded alike: the file's unlimited one gives the expected list page by page.
      expect(r.stdout).toBe((await everything(bulkId())).map((p) => jsonLine(p)).join(''));
      // 24 pages of 50. Page 0 leaves 9: the next 8 go at once and leave 1; from there one at a time.
      const ok = (n: number) => Array<number>(n).fill(200);
      expect(statuses).toEqual([...ok(10), 429, ...ok(10), 429, ...ok(4)]);
      expect(clock.sleeps).toEqual([1000, 1000]);
    } finally {
      await limited.close();
    }
  });
});

describe('summarizeSources', () => {
  it('reads the shapes it may meet', () => {
    expect(summarizeSources(undefined)).toBeUndefined();
    expect(summarizeSources([{ source_type: 'DIRECT' }, { source_type: 'ROLE', source_name: 'Admin' }])).toBe(
      'direct, role Admin',
    );
    expect(summarizeSources([{ source_type: 'ROLE', source_id: 'rol_1' }])).toBe('role rol_1');
    expect(summarizeSources([{ source_type: 'GROUP', source_name: 'Ops' }, 'x'])).toBe('group Ops, x');
    expect(summarizeSources({ weird: true })).toBe('{"weird":true}');
  });
});

describe('find the id, then act on it (issue 29 point 2): one set of users in the emulator', () => {
  const idsOf = async (email: string): Promise<string[]> => {
    const r = await runCli(['users', 'find', '--email', email, '--query', '[].user_id'], { env });
    expect([r.code, r.stderr]).toEqual([0, '']);
    return JSON.parse(r.stdout) as string[];
  };

  it('every id users find prints is a user whose permissions list', async () => {
    expect(await idsOf('alice@example.com')).toEqual(['db|user-0001', 'db|user-0036']);
    for (const email of [...emu.fixtures.databaseUserEmails, 'ops@example.com', 'bulk@example.com']) {
      for (const id of await idsOf(email)) {
        const r = await runCli(['users', 'permissions', id, '--per-page', '1', '-o', 'json'], { env });
        expect([email, id, r.code]).toEqual([email, id, 0]);
      }
    }
  });

  it('a user deleted from its connection is gone from the permissions too', async () => {
    const [id = ''] = await idsOf('bob+ci@example.com');
    expect((await runCli(['users', 'permissions', id, '-o', 'json'], { env })).code).toBe(0);
    const del = ['connections', 'delete-user', emu.fixtures.databaseConnectionId, '--email', 'bob+ci@example.com'];
    expect((await runCli([...del, '--yes', '-o', 'json'], { env })).code).toBe(0);
    const r = await runCli(['users', 'permissions', id], { env });
    expect([r.code, r.stdout]).toEqual([5, '']);
  });
});
