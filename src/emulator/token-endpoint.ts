import type { IncomingMessage } from 'node:http';
import type { LoggedRequest } from './request-log.js';
import type { TokenOutcome, TokenService } from './tokens.js';

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header === undefined ? null : /^Basic\s+(\S+)$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  return {
    id: decodeURIComponent(decoded.slice(0, colon)),
    secret: decodeURIComponent(decoded.slice(colon + 1)),
  };
}

/** Form-encoded or JSON parameters; undefined when the body cannot be parsed. */
function parseParams(body: Buffer, contentType: string): Record<string, string> | undefined {
  const text = body.toString('utf8');
  if (contentType.includes('application/json')) {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
      const out: Record<string, string> = {};
      for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v;
      return out;
    } catch {
      return undefined;
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/** `POST /oauth/token`: parses the body, records what arrived (never the secret) and asks the token service. */
export function answerTokenRequest(
  tokens: TokenService,
  req: IncomingMessage,
  body: Buffer,
  entry: LoggedRequest,
): TokenOutcome {
  const contentType = req.headers['content-type'] ?? '';
  const params = parseParams(body, contentType);
  entry.token = { content_type: contentType };
  if (!params) {
    return {
      status: 400,
      body: { error: 'invalid_request', error_description: 'The request body could not be parsed' },
    };
  }
  for (const key of ['grant_type', 'client_id', 'audience', 'scope', 'client_assertion_type'] as const) {
    if (params[key] !== undefined) entry.token[key] = params[key];
  }
  return tokens.issue(params, basicCredentials(req.headers.authorization), req.headers.host);
}
