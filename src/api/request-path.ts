import { UsageError } from '../errors.js';

/** A path of the interface as `svcadm api` takes it: decoded segments (to be encoded again) and query pairs. */
export interface ApiPath {
  /** Decoded: `db|u1` for `users/db|u1/permissions` and for `users/db%7Cu1/permissions` alike. */
  segments: string[];
  /** `name=value` pairs given after `?`, decoded, in order. */
  query: Array<[string, string]>;
}

const API_PREFIX = /^\/?api\/v2(?=\/|$)/;

function invalid(input: string, why: string, hint?: string): UsageError {
  return new UsageError(`invalid path '${input}': ${why}`, hint);
}

/** Percent-escapes decoded; `+` stays `+` (an e-mail such as `bob+x@example.com` arrives intact). */
function decode(input: string, text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalid(input, `'${text}' is not valid percent-encoding`, 'write a literal % as %25');
  }
}

/**
 * The one reading of a path given to `svcadm api`: relative to `/api/v2` (a leading `/api/v2` is dropped), each
 * segment percent-decoded so that `buildUrl` can encode it exactly once. Refused (exit 2, nothing sent): a URL (the
 * tenant comes from the credentials, never from the path), empty or control characters, `.` and `..` segments (a
 * server may resolve them even encoded), and `{id}` placeholders left from a template.
 */
export function parseApiPath(input: string): ApiPath {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) {
    throw invalid(input, 'give a path of the interface, not a URL', 'the tenant comes from --domain or the profile');
  }
  if (/[\u0000-\u001f\u007f]/.test(input)) throw invalid(input, 'it holds control characters');
  const mark = input.indexOf('?');
  const pathText = (mark === -1 ? input : input.slice(0, mark)).replace(API_PREFIX, '');
  const queryText = mark === -1 ? '' : input.slice(mark + 1);
  const bare = pathText.startsWith('/') ? pathText.slice(1) : pathText;
  if (bare === '') throw invalid(input, 'no path', 'e.g. /users/{id}/permissions, relative to /api/v2');
  const raw = bare.split('/');
  const segments = raw.map((segment, i) => {
    // A trailing slash is kept (an empty last segment); an empty segment inside is a mistake.
    if (segment === '' && i < raw.length - 1) throw invalid(input, 'it has an empty segment (//)');
    const decoded = decode(input, segment);
    if (decoded === '.' || decoded === '..') {
      throw invalid(input, `'${segment}' segments are refused`, 'a server may resolve them, even encoded');
    }
    if (/^\{[^{}]*\}$/.test(decoded)) throw invalid(input, `replace the placeholder ${decoded}`);
    return decoded;
  });
  const query: Array<[string, string]> = [];
  for (const pair of queryText.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(input, eq === -1 ? pair : pair.slice(0, eq));
    if (name === '') throw invalid(input, `query parameter '${pair}' has no name`);
    query.push([name, eq === -1 ? '' : decode(input, pair.slice(eq + 1))]);
  }
  return { segments, query };
}

/** The path as people read it: `/users/db%7Cu1/permissions`, encoded as it is sent. */
export function displayPath(segments: readonly string[]): string {
  return `/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
}
