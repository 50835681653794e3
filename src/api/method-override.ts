/**
 * A request can say it is another method than the one it is sent with: many servers and proxies take a
 * method-override header or a `_method` field (Rails, Laravel, Express's method-override, Google's APIs). svcadm
 * treats such a request as what it does, not as what it is sent as: a GET that names a DELETE is a DELETE
 * (confirmation, correlation id, no retry on 5xx). The one place that says which overrides count.
 */

/** The headers read, lower case as `-H` keeps them, with the spelling shown. */
const OVERRIDE_HEADERS: Readonly<Record<string, string>> = {
  'x-http-method-override': 'X-HTTP-Method-Override',
  'x-http-method': 'X-HTTP-Method',
  'x-method-override': 'X-Method-Override',
};
export const METHOD_FIELD = '_method';
/** What an override may name and stay a read ('': none named); anything else, an unknown word too, may be a write. */
const READS = new Set(['', 'GET', 'HEAD', 'OPTIONS']);

/** An override that makes the request a write, in words (`X-HTTP-Method-Override: DELETE`, `_method=DELETE`). */
export interface WriteOverride {
  readonly shown: string;
}

function names(value: string): string | undefined {
  const method = value.trim().toUpperCase();
  return READS.has(method) ? undefined : method;
}

/**
 * The first override naming a write among `headers` and the request's fields (name and value; a value read from a
 * file, not known before it is read, counts as a write).
 */
export function writeOverride(
  headers: Readonly<Record<string, string>>,
  fields: Iterable<readonly [string, string | { file: string }]>,
): WriteOverride | undefined {
  for (const [key, header] of Object.entries(OVERRIDE_HEADERS)) {
    const value = headers[key];
    const method = value === undefined ? undefined : names(value);
    if (method !== undefined) return { shown: `${header}: ${method}` };
  }
  for (const [name, value] of fields) {
    if (name !== METHOD_FIELD) continue;
    if (typeof value === 'object') return { shown: `${METHOD_FIELD} read from ${value.file}` };
    const method = names(value);
    if (method !== undefined) return { shown: `${METHOD_FIELD}=${method}` };
  }
  return undefined;
}
