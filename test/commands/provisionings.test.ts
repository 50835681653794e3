import { describe, expect, it } from 'vitest';
import { parseProvisioningsListOptions } from '../../src/commands/provisionings/options.js';
import type { DirectoryProvisioning, DirectoryProvisioningPage } from '../../src/domain/resources.js';
import { jsonDocument, jsonLine } from '../../src/render/json.js';
import { neutralize } from '../../src/text/sanitize.js';
import { VirtualClock } from '../helpers/clock.js';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;

withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' } });

const PATH = '/api/v2/connections-directory-provisionings';
const TOTAL = 260; // the emulator's default number of provisionings

async function listed(): Promise<Array<{ query: string; status: number | undefined }>> {
  const { requests } = await emu.requests();
  return requests.filter((r) => r.path === PATH).map((r) => ({ query: r.query, status: r.status }));
}

async function page(args: string[]): Promise<DirectoryProvisioningPage> {
  const r = await runCli(['provisionings', 'list', ...args, '-o', 'json'], { env });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as DirectoryProvisioningPage;
}

/** Tables are read at this time: their ages are then fixed. */
const NOW = Date.parse('2025-06-05T12:00:00Z');
const at = () => new VirtualClock(NOW);

/** `2025-06-02 09:30 (3d ago)`, worked out here for the table's LAST SYNC column. */
function when(iso: string | undefined): string {
  if (iso === undefined) return '-';
  const ms = Date.parse(iso);
  const minutes = Math.floor((NOW - ms) / 60_000);
  const age =
    minutes < 1
      ? 'just now'
      : minutes < 60
        ? `${minutes}m ago`
        : minutes < 48 * 60
          ? `${Math.floor(minutes / 60)}h ago`
          : minutes < 730 * 24 * 60
            ? `${Math.floor(minutes / (24 * 60))}d ago`
            : `${Math.floor(minutes / (365 * 24 * 60))}y ago`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} (${age})`;
}

/** The expected plain table, derived here from the JSON items: the status carries a failure's error. */
function table(items: DirectoryProvisioning[]): string {
  const columns = ['CONNECTION', 'CONNECTION ID', 'STRATEGY', 'LAST SYNC (UTC)', 'STATUS'];
  const rows = items.map((p) => [
    neutralize(p.connection_name ?? '-'),
    p.connection_id ?? '-',
    p.strategy ?? '-',
    when(p.last_synchronization_at),
    p.last_synchronization_error
      ? `${p.last_synchronization_status}: ${p.last_synchronization_error}`
      : (p.last_synchronization_status ?? '-'),
  ]);
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(columns), ...rows.map(line)].join('\n')}\n`;
}

describe('provisionings list: invalid input exits 2 and sends nothing', () => {
  const cases: Array<[string[], string]> = [
    [['--take', '0'], '--take must be from 1 to 100, got 0'],
    [['--take', '101'], '--take must be from 1 to 100, got 101'],
    [['--take', '1.5'], "--take must be a whole number from 1 to 100, got '1.5'"],
    [['--take', 'ten'], "--take must be a whole number from 1 to 100, got 'ten'"],
    [['--take=-1'], "--take must be a whole number from 1 to 100, got '-1'"],
    [
      ['--all', '--from', 'abc'],
      '--all cannot be combined with --from — --all starts at the beginning and follows every page',
    ],
    [['--from', ''], '--from must not be empty'],
  ];
  for (const [args, message] of cases) {
    it(`${args.join(' ')}`, async () => {
      const r = await runCli(['provisionings', 'list', ...args], { env });
      expect(r).toEqual({ code: 2, stdout: '', stderr: `svcadm: ${message}\n` });
      const { counters } = await emu.requests();
      expect(counters.interfaceRequests + counters.tokenRequests).toBe(0);
    });
  }

  it('reports a usage error as the JSON envelope under -o json', async () => {
    const r = await runCli(['provisionings', 'list', '--take', '0', '-o', 'json'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      '{"error":{"status":null,"code":"usage","message":"--take must be from 1 to 100, got 0","exit_code":2}}\n',
    );
  });

  it('parses the options', () => {
    expect(parseProvisioningsListOptions({ take: '100', from: 'x' })).toEqual({ take: 100, from: 'x', all: false });
    expect(parseProvisioningsListOptions({ all: true })).toEqual({ take: undefined, from: undefined, all: true });
  });
});

describe('provisionings list: one page', () => {
  it('prints the body as the service sent it under -o json, and on stderr that more exist and how to get them', async () => {
    const r = await runCli(['provisionings', 'list', '--take', '2', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as DirectoryProvisioningPage;
    expect(r.stderr).toBe(
      `more results: printed 2, more exist; next page: svcadm --domain ${emu.url} -o json provisionings list --from ${body.next} --take 2; every page: svcadm --domain ${emu.url} -o json provisionings list --all --take 2\n`,
    );
    expect(Object.keys(body)).toEqual(['directory_provisionings', 'next']);
    expect(body.directory_provisionings).toHaveLength(2);
    expect(r.stdout).toBe(`${JSON.stringify(body, null, 2)}\n`);
    expect(await listed()).toEqual([{ query: 'take=2', status: 200 }]);
  });

  it('sends no take unless given: the tenant serves its default, 50 (api-notes, revised in round 3)', async () => {
    const body = await page([]);
    expect(body.directory_provisionings).toHaveLength(50);
    expect(await listed()).toEqual([{ query: '', status: 200 }]);
  });

  it('prints one item per line under -o ndjson, then the one more-results line on stderr (not with --quiet)', async () => {
    const { directory_provisionings: items } = await page(['--take', '3']);
    const r = await runCli(['provisionings', 'list', '--take', '3', '-o', 'ndjson'], { env });
    // A checkpoint carries the time it was made: the line is exact but for it.
    const next = /--from (\S+)/.exec(r.stderr)?.[1] ?? 'none';
    expect(r).toEqual({
      code: 0,
      stderr: `more results: printed 3, more exist; next page: svcadm --domain ${emu.url} -o ndjson provisionings list --from ${next} --take 3; every page: svcadm --domain ${emu.url} -o ndjson provisionings list --all --take 3\n`,
      stdout: items.map((i) => `${JSON.stringify(i)}\n`).join(''),
    });
    expect(next).toMatch(/^[\w.-]{20,}$/);
    const quiet = await runCli(['provisionings', 'list', '--take', '3', '-o', 'ndjson', '-q'], { env });
    expect(quiet).toEqual({ code: 0, stderr: '', stdout: r.stdout });
  });

  it('says nothing more after the last page', async () => {
    let from: string | undefined;
    let seen = 0;
    for (;;) {
      const body = await page(['--take', '100', ...(from === undefined ? [] : ['--from', from])]);
      if (!body.next) break;
      seen += body.directory_provisionings.length;
      from = body.next;
    }
    const r = await runCli(['provisionings', 'list', '--take', '100', '--from', from ?? '', '-o', 'ndjson'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(TOTAL - seen);
    expect(r.stderr).toBe('');
  });

  it('prints a table on a terminal and how to get the next page on stderr', async () => {
    const { directory_provisionings: items } = await page(['--take', '3']);
    const r = await runCli(['provisionings', 'list', '--take', '3'], {
      env,
      tty: { stdout: true },
      columns: 200,
      clock: at(),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(table(items));
    // A complete command: the tenant this run used (SVCADM_DOMAIN here) is in it.
    const hint = new RegExp(`^Next page: svcadm --domain ${emu.url} provisionings list --from (\\S+) --take 3\\n$`);
    const next = hint.exec(r.stderr)?.[1];
    expect(next).toBeDefined();
    // The hint works: it gives the following three.
    const following = await page(['--from', next ?? '', '--take', '3']);
    const all = await page(['--take', '6']);
    expect(following.directory_provisionings).toEqual(all.directory_provisionings.slice(3));
  });

  it('hints without --take when none was given, and not at all with --quiet', async () => {
    const r = await runCli(['provisionings', 'list', '-o', 'table'], { env });
    expect(r.stderr).toMatch(
      new RegExp(`^Next page: svcadm --domain ${emu.url} -o table provisionings list --from \\S+\\n$`),
    );
    const quiet = await runCli(['provisionings', 'list', '-o', 'table', '-q'], { env });
    expect(quiet.stderr).toBe('');
  });

  it('gives no hint on the last page', async () => {
    let from = '';
    for (let i = 0; i < 5; i++) from = (await page(['--take', '50', ...(from ? ['--from', from] : [])])).next ?? '';
    const r = await runCli(['provisionings', 'list', '--take', '50', '--from', from, '-o', 'table'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1 + TOTAL - 250);
    expect(r.stderr).toBe('');
  });

  it('passes the checkpoint back unmodified (percent-encoded on the wire)', async () => {
    const first = await page(['--take', '1']);
    await emu.clearRequests();
    await page(['--take', '1', '--from', first.next ?? '']);
    expect(await listed()).toEqual([{ query: `from=${encodeURIComponent(first.next ?? '')}&take=1`, status: 200 }]);
  });

  it('neutralises control characters from the service in the table', async () => {
    const r = await runCli(['provisionings', 'list', '--take', '10'], { env, tty: { stdout: true }, columns: 200 });
    expect(r.stdout).toContain('corp-\\x1b[31mred\\x1b[0m-\\u202eexe.txt\\u202c');
    expect(r.stdout).not.toMatch(/[\u001b\u202e]/);
  });

  it('exits 8 with the service message on a bad checkpoint', async () => {
    const r = await runCli(['provisionings', 'list', '--from', 'garbage', '-o', 'json'], { env });
    expect(r).toEqual({
      code: 8,
      stdout: '',
      stderr:
        '{"error":{"status":400,"code":"invalid_paging","message":"the service rejected the request: Invalid pagination cursor","hint":"a checkpoint lasts 24 hours: start again from the first page, without --from","exit_code":8}}\n',
    });
  });

  it('exits 4 and names the scope when the client may not read provisionings', async () => {
    await emu.failNext({
      path: '/connections-directory-provisionings',
      status: 403,
      body: {
        statusCode: 403,
        error: 'Forbidden',
        message: 'Insufficient scope, expected any of: read:directory_provisionings',
      },
    });
    const denied = await runCli(['provisionings', 'list', '-o', 'table'], { env });
    expect(denied).toEqual({
      code: 4,
      stdout: '',
      stderr:
        "svcadm: forbidden: Insufficient scope, expected any of: read:directory_provisionings — grant the scope read:directory_provisionings to the client in the tenant's settings\n",
    });
  });
});

describe('provisionings list --all', () => {
  async function everything(): Promise<DirectoryProvisioning[]> {
    const out: DirectoryProvisioning[] = [];
    let from: string | undefined;
    do {
      const body = await page(['--take', '100', ...(from ? ['--from', from] : [])]);
      out.push(...body.directory_provisionings);
      from = body.next;
    } while (from);
    return out;
  }

  it('prints one flat array of every item in service order, asking 100 a page and following next past the cap of 50', async () => {
    const expected = await everything();
    expect(expected).toHaveLength(TOTAL);
    await emu.clearRequests();
    const r = await runCli(['provisionings', 'list', '--all', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(jsonDocument(expected));
    const queries = (await listed()).map((l) => l.query);
    expect(queries).toHaveLength(6);
    expect(queries[0]).toBe('take=100');
    expect(queries[1]).toMatch(/^from=[^&]+&take=100$/);
  });

  it('streams NDJSON and honours --take', async () => {
    const expected = await everything();
    await emu.clearRequests();
    const r = await runCli(['provisionings', 'list', '--all', '--take', '50', '-o', 'ndjson'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected.map((p) => jsonLine(p)).join(''));
    expect(await listed()).toHaveLength(6);
  });

  it('returns every item once while the service answers 429 and 503', async () => {
    const expected = await everything();
    await emu.clearRequests();
    await emu.failNext({ path: '/connections-directory-provisionings', status: 503, count: 2 });
    await emu.rateLimitNext('/connections-directory-provisionings', 2, 0);
    const r = await runCli(['provisionings', 'list', '--all', '-o', 'ndjson'], { env });
    expect(r.code).toBe(0);
    const ids = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as DirectoryProvisioning).connection_id);
    expect(ids).toEqual(expected.map((p) => p.connection_id));
    expect((await listed()).map((l) => l.status)).toEqual([503, 503, 429, 429, 200, 200, 200, 200, 200, 200]);
  });

  it('prints every row in the table without a next-page hint, and progress on a terminal', async () => {
    const expected = await everything();
    const r = await runCli(['provisionings', 'list', '--all'], {
      env,
      tty: { stdout: true, stderr: true },
      columns: 200,
      clock: at(),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(table(expected));
    expect(r.stderr).toBe(
      '\r\x1b[2Kfetched 50\r\x1b[2Kfetched 100\r\x1b[2Kfetched 150\r\x1b[2Kfetched 200\r\x1b[2Kfetched 250\r\x1b[2Kfetched 260\r\x1b[2K',
    );
  });

  it('shows no progress in CI or with --quiet', async () => {
    for (const [extraEnv, args] of [
      [{ CI: 'true' }, []],
      [{}, ['--quiet']],
    ] as const) {
      const r = await runCli(['provisionings', 'list', '--all', '-o', 'ndjson', ...args], {
        env: { ...env, ...extraEnv },
        tty: { stderr: true },
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
    }
  });

  it('exits 7 when a page keeps failing', async () => {
    await emu.failNext({ path: '/connections-directory-provisionings', status: 500, count: 1 });
    const r = await runCli(['provisionings', 'list', '--all', '-o', 'ndjson', '--max-retries', '0'], { env });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      '{"error":{"status":500,"code":"internal_server_error","message":"the service failed: Internal Server Error (injected by the emulator)","exit_code":7}}\n',
    );
  });
});
