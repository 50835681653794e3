import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The one way svcadm runs a part of itself in a child process (docs/decisions/2026-11-28-child-roles.md): the child
 * is svcadm again, started with this argument first and the role's name second, and `main` hands it to the role
 * instead of the command line. From npm the child is `node <package>/bin/svcadm.js`; inside the single executable,
 * where `process.execPath` is svcadm itself, it is the executable. Either way no `node` on PATH is needed.
 *
 * For maintainers: the argument is no option of the command line (no help, no completion names it) and only counts
 * as the very first argument, so no command line a user writes for a command can trip it.
 */
export const CHILD_ROLE_ARGUMENT = '--svcadm-internal-child-role';

/** The parts of svcadm that run in a child: one keyring call, the background emulator. */
export const CHILD_ROLES = ['keyring-call', 'background-emulator'] as const;
export type ChildRole = (typeof CHILD_ROLES)[number];

/** A role and the arguments meant for it, when `argv` (without node and the script) starts a child role. */
export function childRoleOf(argv: readonly string[]): { role: ChildRole; args: string[] } | undefined {
  if (argv[0] !== CHILD_ROLE_ARGUMENT) return undefined;
  const role = CHILD_ROLES.find((name) => name === argv[1]);
  return role === undefined ? undefined : { role, args: argv.slice(2) };
}

/** Whether this process is svcadm's single executable (Node's `node:sea`; absent before Node 20.12). */
export function isSingleExecutable(): boolean {
  try {
    return process.getBuiltinModule('node:sea')?.isSea() === true;
  } catch {
    return false;
  }
}

/** The program and arguments that run `role` in a child, with `args` for it. */
export function childRoleCommand(role: ChildRole, args: readonly string[] = []): { file: string; args: string[] } {
  const own = [CHILD_ROLE_ARGUMENT, role, ...args];
  if (isSingleExecutable()) return { file: process.execPath, args: own };
  return { file: process.execPath, args: [launcherPath(), ...own] };
}

let launcher: string | undefined;

/**
 * The npm package's launcher, `bin/svcadm.js`: found from this module upwards, as this module is a file of src/
 * (tests) or of dist/ (the package), at a depth that differs between the two.
 */
function launcherPath(): string {
  if (launcher !== undefined) return launcher;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'bin', 'svcadm.js');
    if (existsSync(candidate)) {
      launcher = candidate;
      return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`svcadm's launcher (bin/svcadm.js) is not above ${import.meta.url}`);
    dir = parent;
  }
}
