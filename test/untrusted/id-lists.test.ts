import { describe, expect, it } from 'vitest';
import { answerJson, hostileServerPerTest } from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

const malformed = (detail: string) => ({
  code: 7,
  stdout: '',
  stderr: `svcadm: malformed answer from the service: ${detail}\n`,
});

describe('the lists that give ids, against a server that lies', () => {
  it.each([
    [['policies', 'list'], { rate_limit_policies: {} }, 'no rate_limit_policies array'],
    [
      ['policies', 'list'],
      { rate_limit_policies: [{ id: 7 }] },
      'an item of rate_limit_policies is not an object with an id',
    ],
    [
      ['policies', 'list'],
      { rate_limit_policies: [], next: 'bad cursor\u001b[2J' },
      'next is not a checkpoint (1 to 1024 visible ASCII characters)',
    ],
    [['connections', 'list'], { connections: 'con_1' }, 'no connections array'],
    [
      ['connections', 'list'],
      { connections: [{ name: 'no id' }] },
      'an item of connections is not an object with an id',
    ],
    [['users', 'find', '--email', 'a@example.com'], { users: [] }, 'expected a list of users'],
    [['users', 'find', '--email', 'a@example.com'], [{ email: 'a@example.com' }], 'a user without a user_id string'],
  ])('%j answered %j: exit 7, nothing printed', async (args, body, detail) => {
    const s = await hostile({ api: answerJson(200, body) });
    expect(await runCli(args, { env: s.env() })).toEqual(malformed(detail));
  });

  it('a checkpoint the service already gave stops --all with exit 7 instead of looping', async () => {
    const s = await hostile({ api: answerJson(200, { connections: [{ id: 'con_1', name: 'a' }], next: 'cp_same' }) });
    const r = await runCli(['connections', 'list', '--all', '-o', 'table'], { env: { ...s.env(), NO_COLOR: '1' } });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr:
        'incomplete: printed 0, more existed\nsvcadm: the service returned the same pagination checkpoint twice\n',
    });
    expect(s.apiRequests()).toHaveLength(2);
  });

  it('an older service answering a bare array to /connections: read as one last page', async () => {
    const s = await hostile({ api: answerJson(200, [{ id: 'con_1', name: 'db', strategy: 'auth0' }]) });
    const r = await runCli(['connections', 'list', '-o', 'table'], { env: { ...s.env(), NO_COLOR: '1' } });
    expect(r).toEqual({
      code: 0,
      stdout: 'ID     NAME  STRATEGY\ncon_1  db    auth0\n',
      stderr: '',
    });
  });

  it('control characters in names never reach the terminal', async () => {
    const s = await hostile({
      api: answerJson(200, [
        {
          user_id: 'db|1',
          name: 'Eve\u001b]8;;http://evil.example\u0007click\u001b]8;;\u0007',
          identities: [{ connection: 'db\u202eexe.txt' }],
        },
      ]),
    });
    const r = await runCli(['users', 'find', '--email', 'eve@example.com', '-o', 'table'], {
      env: { ...s.env(), NO_COLOR: '1' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'USER ID  CONNECTION       NAME                                                 CREATED (UTC)',
        'db|1     db\\u202eexe.txt  Eve\\x1b]8;;http://evil.example\\x07click\\x1b]8;;\\x07  -',
        '',
      ].join('\n'),
    );
  });
});
