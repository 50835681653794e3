import { describe, expect, it } from 'vitest';
import { answerJson, deepJson, hostileServerPerTest, hugeBody } from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

describe('the size of an answer', () => {
  it.each([
    ['without a length', {}],
    ['announced by Content-Length', { contentLength: true }],
  ])('stops at the first answer over 4 MB (%s): exit 7, no retry', async (_name, opts) => {
    const s = await hostile({ api: hugeBody(400 * 1024 * 1024, opts) });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: s.env() });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: the answer from ${new URL(s.url).host} is larger than 4 MB, the most svcadm reads\n`,
    });
    expect(s.apiRequests()).toHaveLength(1);
  });

  it('reads an answer of just under 4 MB', async () => {
    const id = 'x'.repeat(4 * 1024 * 1024 - 100);
    const s = await hostile({ api: (_req, res) => res.end(JSON.stringify({ id, resource: 'r' })) });
    const r = await runCli(['policies', 'get', 'rlp_1', '-o', 'json'], { env: s.env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id, resource: 'r' });
  });
});

describe('answers that are not the JSON they should be', () => {
  it.each([
    [['policies', 'get', 'rlp_1', '-o', 'json'], 'JSON nested more than 64 levels deep'],
    [['users', 'permissions', 'db|u1', '--all', '-o', 'ndjson'], 'JSON nested more than 64 levels deep'],
  ])('%j on 5,000 nested arrays: exit 7, malformed answer', async (args, detail) => {
    const s = await hostile({ api: deepJson(5000) });
    const r = await runCli(args, { env: s.env() });
    const message = `malformed answer from the service: ${detail}`;
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `${JSON.stringify({ error: { status: null, code: 'malformed_answer', message, exit_code: 7 } })}\n`,
    });
  });

  it.each([
    ['null', 'null where an object or a list was expected'],
    ['"text"', 'a string where an object or a list was expected'],
    ['', 'an empty body'],
  ])('a body of %j: exit 7, malformed answer', async (body, detail) => {
    const s = await hostile({ api: answerJson(200, body) });
    for (const args of [
      ['policies', 'get', 'rlp_1'],
      ['provisionings', 'list'],
      ['users', 'permissions', 'db|u1'],
    ]) {
      const r = await runCli(args, { env: s.env() });
      expect(r).toEqual({ code: 7, stdout: '', stderr: `svcadm: malformed answer from the service: ${detail}\n` });
    }
  });
});
