import { createHmac } from 'node:crypto';

export interface ClientSecrets {
  admin: string;
  readOnly: string;
}

/**
 * The clients' secrets as a pure function of the seed, so that the same `--seed` gives the same secrets on every
 * start and saved profiles and exported variables keep working. A chosen admin secret also keys the read-only
 * one, which then cannot be worked out from the seed alone.
 */
export function clientSecrets(seed: number, chosenAdminSecret?: string): ClientSecrets {
  const key = chosenAdminSecret ?? `svcadm-emulator-seed:${seed}`;
  const derive = (client: string) => createHmac('sha256', key).update(`${client}:${seed}`).digest('base64url');
  return { admin: chosenAdminSecret ?? derive('admin'), readOnly: derive('read-only') };
}
