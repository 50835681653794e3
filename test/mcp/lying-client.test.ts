import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeEach, describe, expect, it } from 'vitest';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { BIN } from '../helpers/run-cli.js';
import { connectMcp, INITIALIZE, type McpSession, rawMcp } from './helpers.js';

// Issue 28 point 6: a delete runs only on the user's yes to the question about that connection and that e-mail,
// asked in that call's round trip. The clients here lie: early answers, answers to another question, no way to ask.

let emu: TestEmulator;
let env: Record<string, string>;
const sessions: McpSession[] = [];
const modern: Client[] = [];

beforeEach(async () => {
  while (sessions.length > 0) await sessions.pop()?.close();
  while (modern.length > 0) await modern.pop()?.close();
});
withFileEmulator((each) => ({ emu, env } = each), { emulator: { eventRate: 0 } });

const ALICE = 'alice@example.com';
const YES = { action: 'accept', content: { confirm: true } };
const deletes = async () => (await emu.requests()).requests.filter((q) => q.method === 'DELETE');
const callOf = (id: number, email: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 'delete_connection_user',
    arguments: { connection_id: emu.fixtures.databaseConnectionId, email },
    ...extra,
  },
});
const withCapabilities = (capabilities: object) => ({ ...INITIALIZE, params: { ...INITIALIZE.params, capabilities } });

describe('a 2025-era client (initialize)', () => {
  it('an answer sent with the first call is ignored: the question is asked, and a no deletes nothing', async () => {
    const questions: string[] = [];
    const answers: Record<string, unknown>[] = [];
    const r = await rawMcp(['mcp', '--allow-writes'], env, withCapabilities({ elicitation: { form: {} } }), (line) => {
      if (line.id === 1) return callOf(2, ALICE, { inputResponses: { confirm: YES } });
      if (line.method === 'elicitation/create') {
        questions.push((line.params as { message: string }).message);
        return { jsonrpc: '2.0', id: line.id, result: { action: 'decline' } };
      }
      if (line.id === 2) {
        answers.push(line.result as Record<string, unknown>);
        return 'end';
      }
      return undefined;
    });
    expect(r.code).toBe(0);
    expect(questions).toEqual([
      `Delete ${ALICE} from connection ${emu.fixtures.databaseConnectionId} on ${new URL(emu.url).host}?`,
    ]);
    expect(answers[0]?.isError).toBe(true);
    expect((answers[0]?.content as { text: string }[] | undefined)?.[0]?.text).toBe(
      'not confirmed: nothing was deleted',
    );
    expect(await deletes()).toEqual([]);
  });

  it('a client that cannot ask, sending a yes of its own, is refused and nothing is sent', async () => {
    const answers: Record<string, unknown>[] = [];
    await rawMcp(['mcp', '--allow-writes'], env, withCapabilities({}), (line) => {
      if (line.id === 1) return callOf(2, ALICE, { inputResponses: { confirm: YES } });
      if (line.id === 2) {
        answers.push(line.result as Record<string, unknown>);
        return 'end';
      }
      return undefined;
    });
    const content = answers[0]?.content as { text: string }[];
    expect(answers[0]?.isError).toBe(true);
    expect(content[0]?.text).toMatch(
      /^this client cannot ask the user to confirm \(no form elicitation\): nothing was deleted — /,
    );
    expect(await deletes()).toEqual([]);
  });
});

describe('a 2026-07-28 client (requestState)', () => {
  async function modernClient() {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--allow-writes'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stderr: 'pipe',
    });
    const client = new Client(
      { name: 'liar', version: '1' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: false },
      },
    );
    await client.connect(transport);
    modern.push(client);
    return client;
  }
  type Answer = { resultType?: string; requestState?: string; isError?: boolean; content?: { text: string }[] };
  const call = async (client: Client, email: string, extra: Record<string, unknown> = {}) =>
    (await client.callTool(
      {
        name: 'delete_connection_user',
        arguments: { connection_id: emu.fixtures.databaseConnectionId, email },
        ...extra,
      },
      { allowInputRequired: true },
    )) as Answer;

  it("a yes to the question about alice never confirms o'neil, and a yes counts once", async () => {
    const client = await modernClient();
    const asked = await call(client, ALICE);
    expect(asked.requestState).toEqual(expect.any(String));
    // The state minted for alice, sent with a yes for o'neil: asked again, nothing deleted.
    const oneil = await call(client, "o'neil@example.com", {
      inputResponses: { confirm: YES },
      requestState: asked.requestState,
    });
    expect(oneil.resultType).toBe('input_required');
    expect(oneil.requestState).not.toBe(asked.requestState);
    // The same state again, now for alice: it was spent on the forgery.
    const replay = await call(client, ALICE, { inputResponses: { confirm: YES }, requestState: asked.requestState });
    expect(replay.resultType).toBe('input_required');
    expect(await deletes()).toEqual([]);
    // A state nobody minted.
    const forged = await call(client, ALICE, { inputResponses: { confirm: YES }, requestState: 'forged' });
    expect(forged.resultType).toBe('input_required');
    expect(await deletes()).toEqual([]);
    // The honest round trip deletes, once.
    const done = await call(client, ALICE, { inputResponses: { confirm: YES }, requestState: replay.requestState });
    expect(done.resultType).toBeUndefined();
    expect(done.isError).toBeUndefined();
    expect(await deletes()).toHaveLength(1);
  });

  it('an answer sent with the first call, without a requestState, is ignored', async () => {
    const client = await modernClient();
    const early = await call(client, ALICE, { inputResponses: { confirm: YES } });
    expect(early.resultType).toBe('input_required');
    expect(await deletes()).toEqual([]);
  });
});

describe('the official client, honest', () => {
  it('answers each question once, and only the confirmed delete runs', async () => {
    const s = await connectMcp(['mcp', '--allow-writes'], env, (message) =>
      message.includes(ALICE) ? { action: 'accept', content: { confirm: true } } : { action: 'decline' },
    );
    sessions.push(s);
    const yes = await s.client.callTool({
      name: 'delete_connection_user',
      arguments: { connection_id: emu.fixtures.databaseConnectionId, email: ALICE },
    });
    const no = await s.client.callTool({
      name: 'delete_connection_user',
      arguments: { connection_id: emu.fixtures.databaseConnectionId, email: 'bob+ci@example.com' },
    });
    expect(yes.isError).toBeUndefined();
    expect(no.isError).toBe(true);
    expect((await deletes()).map((q) => q.query)).toEqual(['email=alice%40example.com']);
  });

  it('--allow-writes=unconfirmed still asks a client that can ask', async () => {
    const s = await connectMcp(['mcp', '--allow-writes=unconfirmed'], env, () => ({ action: 'decline' }));
    sessions.push(s);
    const r = await s.client.callTool({
      name: 'delete_connection_user',
      arguments: { connection_id: emu.fixtures.databaseConnectionId, email: ALICE },
    });
    expect(s.questions).toHaveLength(1);
    expect(r.isError).toBe(true);
    expect(await deletes()).toEqual([]);
  });
});
