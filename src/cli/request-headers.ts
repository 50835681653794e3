import { UsageError } from '../errors.js';
import { HEADER_SAFE } from './correlation-id.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers `-H` may not set: credentials (svcadm sends the token of the active credentials, and only to the tenant),
 * the framing of the request (set by the HTTP layer), and the correlation id (`--correlation-id` checks and prints it).
 */
const REFUSED: Readonly<Record<string, string>> = {
  authorization: 'svcadm sends the token of the active credentials; choose them with -p, --token or SVCADM_TOKEN',
  'proxy-authorization': 'svcadm never sends credentials it was not given as credentials',
  cookie: 'svcadm never sends credentials it was not given as credentials',
  host: 'the host comes from --domain or the profile',
  'content-length': 'set by svcadm from the body',
  'transfer-encoding': 'set by svcadm',
  connection: 'set by svcadm',
  'keep-alive': 'set by svcadm',
  upgrade: 'not supported',
  te: 'set by svcadm',
  trailer: 'not supported',
  'x-correlation-id': 'use --correlation-id',
};

/** `-H 'Name: value'` lines → headers (names in lower case). A refused or malformed header is exit 2. */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = (colon === -1 ? line : line.slice(0, colon)).trim();
    if (colon === -1 || !TOKEN.test(name)) throw new UsageError(`-H '${line}' is not 'Name: value'`);
    const value = line.slice(colon + 1).trim();
    if (value !== '' && !HEADER_SAFE.test(value)) {
      throw new UsageError(`-H ${name}: the value must be visible ASCII characters (spaces only inside)`);
    }
    const key = name.toLowerCase();
    const refused = REFUSED[key];
    if (refused !== undefined) throw new UsageError(`-H ${name} is not allowed`, refused);
    if (key in headers) throw new UsageError(`-H ${name} is given twice`);
    headers[key] = value;
  }
  return headers;
}
