import type { Env } from './context.js';
import { UsageError } from './errors.js';

/** Set to 1 to run as for an agent; 0 turns off a marker an agent's shell set. */
export const AGENT_VARIABLE = 'SVCADM_AGENT';

/** Whether svcadm runs for an AI agent (as off a terminal, whatever the terminal), and which variable said so. */
export interface AgentMode {
  readonly on: boolean;
  /** The variable that decided it (`SVCADM_AGENT`, `CLAUDECODE`, …); undefined when nothing is set. */
  readonly variable: string | undefined;
  /** The agent that variable names (`claude-code`), when it names one. */
  readonly agent: string | undefined;
}

interface Marker {
  readonly variable: string;
  readonly agent: string;
  /** Only this value counts (for variables with other uses); else any value but empty, `0` and `false`. */
  readonly value?: string;
}

/**
 * What AI coding agents set in the shells they run commands in, as the GitHub CLI (`internal/agents/detect.go`) and
 * the vendor's CLI detect them. Only markers of an agent running the command: not those of an editor a person also
 * types in (`CURSOR_TRACE_ID`, `TERM_PROGRAM`), nor of a whole hosted environment (`REPL_ID`).
 */
const MARKERS: readonly Marker[] = [
  { variable: 'AI_AGENT', agent: 'ai-agent' },
  { variable: 'AGENT', agent: 'amp', value: 'amp' },
  { variable: 'AGENT', agent: 'goose', value: 'goose' },
  { variable: 'CLAUDECODE', agent: 'claude-code' },
  { variable: 'CLAUDE_CODE', agent: 'claude-code' },
  { variable: 'CODEX_SANDBOX', agent: 'codex' },
  { variable: 'CODEX_CI', agent: 'codex' },
  { variable: 'CODEX_THREAD_ID', agent: 'codex' },
  { variable: 'GEMINI_CLI', agent: 'gemini-cli' },
  { variable: 'CURSOR_AGENT', agent: 'cursor' },
  { variable: 'CURSOR_EXTENSION_HOST_ROLE', agent: 'cursor', value: 'agent-exec' },
  { variable: 'COPILOT_CLI', agent: 'copilot-cli' },
  { variable: 'COPILOT_AGENT_SESSION_ID', agent: 'copilot-cli' },
  { variable: 'OPENCODE', agent: 'opencode' },
  { variable: 'OPENCODE_CLIENT', agent: 'opencode' },
  { variable: 'AUGMENT_AGENT', agent: 'augment' },
  { variable: 'ANTIGRAVITY_AGENT', agent: 'antigravity' },
  { variable: 'CLINE_ACTIVE', agent: 'cline' },
];

const OFF = new Set(['', '0', 'false']);

function marks(marker: Marker, env: Env): boolean {
  const value = env[marker.variable];
  if (value === undefined) return false;
  return marker.value === undefined ? !OFF.has(value.trim().toLowerCase()) : value === marker.value;
}

/**
 * `SVCADM_AGENT=1` (or `true`) turns agent mode on, `0` (or `false`) off whatever else is set; unset or empty, the
 * first marker an agent's shell set turns it on. Another value is a usage error: a typo must not prompt an agent.
 */
export function agentModeOf(env: Env): AgentMode {
  const own = env[AGENT_VARIABLE]?.trim().toLowerCase();
  if (own === '1' || own === 'true') return { on: true, variable: AGENT_VARIABLE, agent: undefined };
  if (own === '0' || own === 'false') return { on: false, variable: AGENT_VARIABLE, agent: undefined };
  if (own !== undefined && own !== '') {
    throw new UsageError(`${AGENT_VARIABLE} must be 1 or 0, got '${env[AGENT_VARIABLE]}'`);
  }
  const found = MARKERS.find((marker) => marks(marker, env));
  if (found === undefined) return { on: false, variable: undefined, agent: undefined };
  const named = found.variable === 'AI_AGENT' ? env.AI_AGENT?.trim() : found.agent;
  return { on: true, variable: found.variable, agent: named && /^[\w.@-]{1,64}$/.test(named) ? named : found.agent };
}
