import type { ToolAnnotations } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ApiClient } from '../api/client.js';
import type { Clock } from '../clock.js';
import type { Redactor } from '../io/redaction.js';
import type { Confirmation } from './confirmation.js';
import { fitItems } from './results.js';

/** What a tool may use: the same API client, clock and secrets as any command of this invocation. */
export interface ToolEnv {
  api(): ApiClient;
  /** The tenant's host, to name in a question. */
  tenant(): string;
  clock: Clock;
  random(): number;
  /** Aborts when the client cancels the call or svcadm is stopped. */
  signal: AbortSignal;
  secrets: Redactor;
  /**
   * What the user said, in this call's round trip, to the question svcadm asked about `subject` (`ToolOutcome.confirm`).
   * `waived`: the client cannot ask, and the server was started with `--allow-writes=unconfirmed`.
   */
  confirmation(subject: string): Confirmation;
  /**
   * Runs `read` holding one of the server's event-stream slots (`--max-streams`), waiting at most `waitMs` for one,
   * and gives it the wait left; `busy` when none came free in time.
   */
  stream<T>(waitMs: number, read: (leftMs: number) => Promise<T>): Promise<T | 'busy'>;
  /** The profiles this server serves and their domains (`svcadm mcp --profiles`); empty without. */
  profiles(): { profile: string; domain: string }[];
  /** The API of a profile this server serves (a tool that names its tenants itself); refused without `--profiles`. */
  apiOf(profile: string): ApiClient;
}

export type ToolOutcome =
  /**
   * Done: `data` becomes `structuredContent` (cleaned, bounded), `text` the short text beside it: svcadm's own words
   * only (counts, fixed phrases), never a string from the service or one the agent passed.
   */
  | { data: Record<string, unknown>; text: string }
  /** Ask the user `confirm` first (MCP elicitation) about `subject`, then run again with their answer. */
  | { confirm: string; subject: string };

export type InputSchema = z.ZodObject;

export interface ToolSpec<I extends InputSchema = InputSchema> {
  name: string;
  title: string;
  description: string;
  /** Changes the tenant: offered only with `--allow-writes`. */
  writes: boolean;
  /** Names the tenants it works on in its own arguments (`diff_tenants`): it takes no `profile`. */
  namesProfiles?: true;
  annotations: ToolAnnotations;
  input: I;
  output: z.ZodObject;
  run(input: z.infer<I>, env: ToolEnv): Promise<ToolOutcome>;
}

/** Keeps the input's type for `run` (the table holds tools of different inputs). */
export function defineTool<I extends InputSchema>(spec: ToolSpec<I>): ToolSpec {
  return spec as unknown as ToolSpec;
}

/**
 * Read-only, same answer twice, and a closed world: each tool works on the one tenant of this invocation, nothing
 * beyond it.
 */
export const READS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Some string-keyed record from the service, its known fields described, the rest kept. */
export const serviceObject = z.looseObject({});

export const cursorOut = z
  .string()
  .nullable()
  .describe('pass it as `cursor` to get the next page; null on the last page');

export const omittedOut = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe('items of this page left out to keep the result small; ask for fewer per page to see them');

/** A noun's two forms: `1 connection`, `3 connections`. */
export interface Noun {
  one: string;
  many: string;
}

export function count(n: number, noun: Noun): string {
  return `${n} ${n === 1 ? noun.one : noun.many}`;
}

/** A page's items fitted to the result bound, with the next cursor and a short text saying both. */
export function pageOutcome(
  key: string,
  noun: Noun,
  items: readonly unknown[],
  next: string | null,
  env: ToolEnv,
): ToolOutcome {
  const { kept, omitted } = fitItems(items, env.secrets);
  const parts = [count(kept.length, noun)];
  if (omitted > 0) parts.push(`${omitted} more on this page left out to keep the result small: ask for fewer`);
  parts.push(next === null ? 'last page' : 'more: call again with the next_cursor');
  return {
    data: { [key]: kept, next_cursor: next, ...(omitted > 0 ? { omitted } : {}) },
    text: `${parts.join('; ')}.`,
  };
}

export interface CheckpointListSpec<F extends z.ZodRawShape = Record<never, never>> {
  name: string;
  title: string;
  description: string;
  /** The list's field in the result, and what its items are called in the text. */
  key: string;
  noun: Noun;
  item: z.ZodObject;
  maxTake: number;
  /** The list's own filters (`strategy`, `name`, …), beside `cursor` and `take`. */
  filters?: F;
  /** One page: the endpoint function, its items and its `next` checkpoint. */
  fetch(
    api: ApiClient,
    page: { from: string | undefined; take: number },
    filters: z.infer<z.ZodObject<F>>,
  ): Promise<{ items: unknown[]; next?: string | null | undefined }>;
}

/** How many results a list tool asks for when the agent gives no page size. */
export const TOOL_PAGE_SIZE = 50;

/** A list the service pages with checkpoints (`from`/`take`/`next`): one page per call. */
export function checkpointListTool<F extends z.ZodRawShape = Record<never, never>>(
  spec: CheckpointListSpec<F>,
): ToolSpec {
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    writes: false,
    annotations: READS,
    input: z.strictObject({
      ...(spec.filters ?? ({} as F)),
      cursor: z
        .string()
        .min(1)
        .max(1024)
        .optional()
        .describe('the next_cursor of the previous page; omit for the first page'),
      take: z
        .number()
        .int()
        .min(1)
        .max(spec.maxTake)
        .optional()
        .describe(`results per page, 1 to ${spec.maxTake} (default ${TOOL_PAGE_SIZE})`),
    }),
    output: z.object({ [spec.key]: z.array(spec.item), next_cursor: cursorOut, omitted: omittedOut }),
    async run(input, env) {
      const { cursor, take, ...filters } = input as { cursor?: string; take?: number } & Record<string, unknown>;
      const page = await spec.fetch(
        env.api(),
        { from: cursor, take: take ?? TOOL_PAGE_SIZE },
        filters as z.infer<z.ZodObject<F>>,
      );
      return pageOutcome(spec.key, spec.noun, page.items, page.next || null, env);
    },
  });
}
