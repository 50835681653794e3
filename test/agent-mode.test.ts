import { describe, expect, it } from 'vitest';
import { agentModeOf } from '../src/agent-mode.js';

// Which shells are an agent's (issue 16, item 6). The pseudo-terminal behaviour is in test/terminal/agent-mode.test.ts.

describe('agent mode from the environment', () => {
  it.each([
    [{ CLAUDECODE: '1' }, 'CLAUDECODE', 'claude-code'],
    [{ CLAUDE_CODE: '1' }, 'CLAUDE_CODE', 'claude-code'],
    [{ CODEX_SANDBOX: 'seatbelt' }, 'CODEX_SANDBOX', 'codex'],
    [{ CODEX_THREAD_ID: '0199a' }, 'CODEX_THREAD_ID', 'codex'],
    [{ GEMINI_CLI: '1' }, 'GEMINI_CLI', 'gemini-cli'],
    [{ CURSOR_AGENT: '1' }, 'CURSOR_AGENT', 'cursor'],
    [{ CURSOR_EXTENSION_HOST_ROLE: 'agent-exec' }, 'CURSOR_EXTENSION_HOST_ROLE', 'cursor'],
    [{ COPILOT_AGENT_SESSION_ID: 'abc' }, 'COPILOT_AGENT_SESSION_ID', 'copilot-cli'],
    [{ OPENCODE: '1' }, 'OPENCODE', 'opencode'],
    [{ AGENT: 'amp', CLAUDECODE: '1' }, 'AGENT', 'amp'],
    [{ AI_AGENT: 'my-bot@2' }, 'AI_AGENT', 'my-bot@2'],
    [{ AI_AGENT: '\u001b[31mred' }, 'AI_AGENT', 'ai-agent'],
  ])('%j: on, because of %s (%s)', (env, variable, agent) => {
    expect(agentModeOf(env)).toEqual({ on: true, variable, agent });
  });

  it.each([
    [{}],
    [{ CLAUDECODE: '' }],
    [{ CLAUDECODE: '0' }],
    [{ GEMINI_CLI: 'false' }],
    [{ AGENT: 'jenkins' }],
    [{ CURSOR_EXTENSION_HOST_ROLE: 'ui' }],
    // A person's own terminal in the Cursor editor, in Replit, in a shell with Goose configured.
    [{ CURSOR_TRACE_ID: 'abc', REPL_ID: 'x', GOOSE_PROVIDER: 'openai', TERM_PROGRAM: 'kiro' }],
    [{ CI: 'true' }],
  ])('%j: off', (env) => {
    expect(agentModeOf(env)).toEqual({ on: false, variable: undefined, agent: undefined });
  });

  it('SVCADM_AGENT decides over any marker; another value is a usage error', () => {
    expect(agentModeOf({ SVCADM_AGENT: '1' })).toEqual({ on: true, variable: 'SVCADM_AGENT', agent: undefined });
    expect(agentModeOf({ SVCADM_AGENT: 'true' }).on).toBe(true);
    expect(agentModeOf({ SVCADM_AGENT: '0', CLAUDECODE: '1' })).toEqual({
      on: false,
      variable: 'SVCADM_AGENT',
      agent: undefined,
    });
    expect(agentModeOf({ SVCADM_AGENT: '', CLAUDECODE: '1' }).variable).toBe('CLAUDECODE');
    expect(() => agentModeOf({ SVCADM_AGENT: 'yes' })).toThrow("SVCADM_AGENT must be 1 or 0, got 'yes'");
  });
});
