import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Tests that need a program the machine may lack (zsh, fish, tmux, a keyring daemon):
 *
 *   const zsh = requireProgram('zsh');
 *   it.skipIf(zsh.missing)(zsh.title('passes zsh -n'), () => { … });
 *
 * Where the program is missing the test is skipped, and its title says why. With SVCADM_TEST_REQUIRE_ALL=1 (set by
 * .ci/run) a missing program fails the test file instead, naming it: CI runs every test.
 */
export interface Requirement {
  /** True when the tests that need it are to be skipped. */
  readonly missing: boolean;
  /** What is missing and how to get it ('' when nothing is). */
  readonly why: string;
  /** `name` as it is, or followed by why it is skipped. */
  title(name: string): string;
}

export const REQUIRE_ALL_VARIABLE = 'SVCADM_TEST_REQUIRE_ALL';

/** Whether `program` is an executable file in one of PATH's folders (no shell asked). */
export function onPath(program: string, path = process.env.PATH ?? ''): boolean {
  return path
    .split(delimiter)
    .filter((dir) => dir !== '')
    .some((dir) => {
      const file = join(dir, program);
      try {
        accessSync(file, constants.X_OK);
        return statSync(file).isFile();
      } catch {
        return false;
      }
    });
}

/** `install` says how to get it, for the skip and the failure. */
export function requireProgram(program: string, install = `apt-get install -y ${program}`): Requirement {
  return requirement(onPath(program), `${program} is not on PATH (${install})`);
}

/** The same for a requirement that is not a program: `found` says whether it is met, `why` what is missing. */
export function requirement(found: boolean, why: string): Requirement {
  if (!found && process.env[REQUIRE_ALL_VARIABLE] === '1') {
    throw new Error(`${why}, and ${REQUIRE_ALL_VARIABLE}=1 asks for every test to run`);
  }
  return {
    missing: !found,
    why: found ? '' : why,
    title: (name) => (found ? name : `${name} [skipped: ${why}]`),
  };
}
