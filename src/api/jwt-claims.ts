function jsonObject(part: string | undefined): Record<string, unknown> | undefined {
  if (!part || !/^[A-Za-z0-9_-]+$/.test(part)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a JWT's payload without verifying it: only to show expiry and scopes to the user. */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  return jsonObject(token.split('.')[1]);
}

/** Whether a token has the shape of a signed JWT: three base64url parts, a header naming its algorithm, claims. */
export function isJwt(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3 || !/^[A-Za-z0-9_-]+$/.test(parts[2] ?? '')) return false;
  const header = jsonObject(parts[0]);
  return typeof header?.alg === 'string' && jwtClaims(token) !== undefined;
}
