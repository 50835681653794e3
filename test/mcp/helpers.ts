import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN } from '../helpers/run-cli.js';

export type ElicitAnswer = { action: 'accept'; content: { confirm: boolean } } | { action: 'decline' | 'cancel' };

export interface McpSession {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** The questions the server asked through elicitation. */
  questions: string[];
  close(): Promise<void>;
}

/**
 * `svcadm <args>` (the built binary) as an MCP server, driven by the official client SDK over stdio. With `elicit`,
 * the client declares form elicitation and answers each question so.
 */
export async function connectMcp(
  args: string[],
  env: Record<string, string | undefined>,
  elicit?: (message: string) => ElicitAnswer,
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args],
    env: Object.fromEntries(
      Object.entries({ PATH: process.env.PATH, HOME: process.env.HOME, ...env }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    ),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(
    { name: 'svcadm-test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  const questions: string[] = [];
  if (elicit) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = request.params.message;
      questions.push(message);
      return elicit(message);
    });
  }
  await client.connect(transport);
  return { client, stderr: () => stderr, questions, close: () => client.close() };
}

export interface RawRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Bytes sent as they are (not JSON-encoded): text that is not JSON, a batch, a line over the bound. */
export interface RawLine {
  raw: string;
}

/**
 * The binary with hand-written JSON-RPC lines: each is sent once the server has answered the one before (`onLine`
 * decides what to send next, or `end` to close stdin, or `signal` to send one), so nothing waits on a timer.
 */
export function rawMcp(
  args: string[],
  env: Record<string, string | undefined>,
  first: object,
  onLine: (line: Record<string, unknown>) => object | RawLine | 'end' | NodeJS.Signals | undefined,
): Promise<RawRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      pending += chunk.toString('utf8');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const next = onLine(JSON.parse(line) as Record<string, unknown>);
        if (next === 'end') child.stdin.end();
        else if (typeof next === 'string') child.kill(next);
        else if (next !== undefined && 'raw' in next && typeof next.raw === 'string') child.stdin.write(next.raw);
        else if (next !== undefined) child.stdin.write(`${JSON.stringify(next)}\n`);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.write(`${JSON.stringify(first)}\n`);
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
