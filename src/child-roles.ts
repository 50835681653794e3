import type { ChildRole } from './util/child-role.js';

/**
 * Runs the part of svcadm a child process was started for (src/util/child-role.ts names the roles and starts them);
 * each role's code is loaded only here, in its child.
 */
export async function runChildRole(role: ChildRole, args: readonly string[]): Promise<number> {
  switch (role) {
    case 'keyring-call': {
      const { serveKeyringCall } = await import('./config/keyring-call.js');
      return serveKeyringCall(args);
    }
    case 'background-emulator': {
      // From npm, bin/svcadm.js serves this role itself, to load the emulator's entry alone: this is the executable's.
      const { serveAsBackgroundChild } = await import('./emulator/server.js');
      // It serves until a signal ends it (src/emulator/background.ts).
      serveAsBackgroundChild();
      return 0;
    }
  }
}
