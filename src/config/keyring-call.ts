import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isSingleExecutable } from '../util/child-role.js';
import { embeddedAddon, verifiedAddon } from './keyring-addon.js';

interface KeyringEntry {
  getPassword(): string | null;
  setPassword(secret: string): unknown;
  deletePassword(): unknown;
}
type EntryClass = new (service: string, account: string, options: object) => KeyringEntry;

/** The binding at `path`: the npm package's entry, or (inside the executable) the addon, checked before it loads. */
function loadBinding(path: string): { Entry: EntryClass } {
  if (!isSingleExecutable()) return createRequire(import.meta.url)(path) as { Entry: EntryClass };
  const addon = embeddedAddon();
  if (addon === undefined) throw new Error('this svcadm executable carries no keyring module');
  const module = { exports: {} as { Entry: EntryClass } };
  process.dlopen(module, verifiedAddon(path, addon.sha256));
  return module.exports;
}

/**
 * svcadm's `keyring-call` role (src/util/child-role.ts): one keyring call, its request on stdin (the secret never in
 * argv), its answer on stdout as JSON. `args` is the binding's path, chosen by the parent (src/config/secret-store.ts),
 * which bounds this process in time.
 */
export function serveKeyringCall(args: readonly string[]): number {
  let answer: { ok: true; value: unknown } | { ok: false; message: string };
  try {
    const request = JSON.parse(readFileSync(0, 'utf8')) as {
      service: string;
      account: string;
      op: 'read' | 'write' | 'remove';
      secret?: string;
    };
    const { Entry } = loadBinding(args[0] ?? '');
    // Linux: the Secret Service only; the kernel keyring would lose the secret at the next reboot.
    const entry = new Entry(request.service, request.account, { linux: { store: 'secret-service' } });
    if (request.op === 'read') answer = { ok: true, value: entry.getPassword() };
    else if (request.op === 'write') answer = { ok: true, value: entry.setPassword(request.secret ?? '') ?? null };
    else answer = { ok: true, value: entry.deletePassword() };
  } catch (err) {
    answer = { ok: false, message: String((err instanceof Error && err.message) || err) };
  }
  process.stdout.write(JSON.stringify(answer));
  return 0;
}
