import type { EnvironmentVariable } from '../cli/command.js';
import { CREDENTIAL_VARIABLES, PROFILE_VARIABLE } from '../config/credential-variables.js';

const CREDENTIALS: EnvironmentVariable = {
  names: [PROFILE_VARIABLE, ...Object.values(CREDENTIAL_VARIABLES)],
  description: 'stand in for the flags of the same name',
};
export const PROFILE_ENV: EnvironmentVariable = {
  names: [PROFILE_VARIABLE],
  description: 'stands in for -p, --profile',
};
/** `--profiles` from the environment (`src/global-options.ts` reads it). */
const PROFILES_ENV: EnvironmentVariable = {
  names: ['SVCADM_PROFILES'],
  description: 'stands in for --profiles',
};
export const STORE_ENV: EnvironmentVariable = {
  names: ['SVCADM_CONFIG_DIR'],
  description: 'folder of the profile store and token cache',
};
export const COLOUR_ENV: EnvironmentVariable = {
  names: ['NO_COLOR', 'FORCE_COLOR', 'TERM'],
  description: 'colour (none on TERM=dumb)',
};
const COLOUR_PROGRESS: EnvironmentVariable = {
  names: ['NO_COLOR', 'FORCE_COLOR', 'TERM', 'CI'],
  description: 'colour and progress lines (TERM=dumb: neither; CI: no progress)',
};
/** Agent mode (`src/agent-mode.ts`): its markers are listed in the README, not in every help page. */
const AGENT_ENV: EnvironmentVariable = {
  names: ['SVCADM_AGENT'],
  description: 'agent mode: 1 on, 0 off (see the README)',
};
export const COMPLETION_ENV: EnvironmentVariable = {
  names: ['SVCADM_CONFIG_DIR'],
  description: 'profile names are completed from the store here',
};

const ACCESSIBLE_ENV: EnvironmentVariable = {
  names: ['SVCADM_ACCESSIBLE'],
  description: 'accessible mode: 1 on (same as --accessible)',
};

/** What every command that talks to the tenant reads (the default); the root's help lists it too. */
export const TENANT_ENVIRONMENT: readonly EnvironmentVariable[] = [
  CREDENTIALS,
  PROFILES_ENV,
  STORE_ENV,
  COLOUR_PROGRESS,
  AGENT_ENV,
  ACCESSIBLE_ENV,
];

const NAMES_WIDTH = 35;
/** Names lines fit the narrowest help (60 columns) as they are: the help wrapper never has to break them. */
const LINE_WIDTH = 58;

/**
 * The help lines for `variables`: names, then the description at a fixed column. A list of names too long for that
 * column ends on the description's line and starts on the lines before it.
 */
export function environmentLines(variables: readonly EnvironmentVariable[]): string[] {
  return variables.map(({ names, description }) => {
    const last: string[] = [];
    let rest = [...names];
    while (rest.length > 0 && [rest[rest.length - 1], ...last].join(', ').length <= NAMES_WIDTH - 2) {
      last.unshift(rest.pop() as string);
    }
    if (last.length === 0) {
      last.unshift(rest.pop() as string);
    }
    const lines: string[] = [];
    let line = '';
    for (const name of rest) {
      const next = line === '' ? `  ${name},` : `${line} ${name},`;
      if (next.length > LINE_WIDTH && line !== '') {
        lines.push(line);
        line = `  ${name},`;
      } else line = next;
    }
    if (line !== '') lines.push(line);
    rest = [];
    lines.push(`  ${last.join(', ').padEnd(NAMES_WIDTH)}${description}`);
    return lines.join('\n');
  });
}
