import { describe, expect, it } from 'vitest';
import { answerJson, hostileServerPerTest } from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

describe('dot segments as ids', () => {
  it.each([
    [['connections', 'delete-user', '..', '--email', 'bob@example.com', '--yes'], '..'],
    [['connections', 'delete-user', '.', '--email', 'bob@example.com', '--yes'], '.'],
    [['policies', 'get', '..'], '..'],
    [['users', 'permissions', '.'], '.'],
    [['users', 'permissions', '..', '--all'], '..'],
  ])('%j is refused with exit 2 and nothing is sent', async (args, id) => {
    const server = await hostile({ api: answerJson(200, {}) });
    const r = await runCli(args, { env: server.env() });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: '${id}' cannot be used as an id: servers read '.' and '..' in a path as steps, not names\n`,
    });
    expect(server.requests).toEqual([]);
  });
});
