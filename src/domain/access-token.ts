/**
 * What svcadm takes for an access token, from the token service, the cache or the user: 1 to 16,384 visible ASCII
 * characters. Anything else cannot travel in an Authorization header unchanged (a CR/LF would split it); 16 KB is
 * what Node and most servers accept for a request's headers at all.
 */
export const ACCESS_TOKEN_MAX = 16 * 1024;
export const ACCESS_TOKEN_RULE = `1 to ${ACCESS_TOKEN_MAX} visible ASCII characters`;

const ACCESS_TOKEN = new RegExp(`^[\\x21-\\x7e]{1,${ACCESS_TOKEN_MAX}}$`);

export function isAccessToken(value: unknown): value is string {
  return typeof value === 'string' && ACCESS_TOKEN.test(value);
}
