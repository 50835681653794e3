import { createHmac, randomBytes } from 'node:crypto';

export interface ClientSecrets {
  admin: string;
  readOnly: string;
}

/**
 * The clients' secrets: the admin secret is chosen (`--client-secret`) or new and random on every start, so that no
 * one can work it out from the seed; the read-only secret is keyed by it.
 */
export function clientSecrets(seed: number, chosenAdminSecret?: string): ClientSecrets {
  const admin = chosenAdminSecret ?? randomBytes(32).toString('base64url');
  const readOnly = createHmac('sha256', admin).update(`read-only:${seed}`).digest('base64url');
  return { admin, readOnly };
}
