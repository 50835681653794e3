// Apart from options.ts, whose key parsing brings node:crypto: the CLI checks --client-secret at every start.

/** Why a chosen client secret is refused: it must be 1 to 1024 visible ASCII characters (it travels in forms and shell variables). */
export function clientSecretViolation(secret: string): string | undefined {
  if (secret.length === 0 || secret.length > 1024) return 'must be 1 to 1024 characters';
  if (!/^[\x21-\x7e]+$/.test(secret)) return 'must be visible ASCII characters (no spaces or control characters)';
  return undefined;
}
