import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorState } from './state.js';

/** A request to the management interface (`/api/v2/…`), as its routes and handlers see it. */
export interface InterfaceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** Path segments after `/api/v2`, still percent-encoded. */
  segments: string[];
  query: URLSearchParams;
  /** Rate-limit headers every response carries. */
  headers: Record<string, string>;
}

/** The scopes of the caller's token (401 without a valid one): every handler asks before it checks its own. */
export function scopesOf(state: EmulatorState, call: InterfaceRequest): Set<string> {
  return state.tokens.authenticate(call.req.headers.authorization, call.req.headers.host);
}
