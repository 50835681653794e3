/** Lines of the "Environment:" help sections, declared on each command with `.environment([...])`. */

const CREDENTIALS =
  '  SVCADM_PROFILE, SVCADM_DOMAIN, SVCADM_CLIENT_ID,\n' +
  '  SVCADM_CLIENT_SECRET, SVCADM_TOKEN, SVCADM_AUTH_URL,\n' +
  '  SVCADM_AUDIENCE                    stand in for the flags of the same name';
export const PROFILE_ENV = '  SVCADM_PROFILE                     stands in for -p, --profile';
export const STORE_ENV = '  SVCADM_CONFIG_DIR                  folder of the profile store and token cache';
export const COLOUR_ENV = '  NO_COLOR, FORCE_COLOR, TERM        colour (none on TERM=dumb)';
const COLOUR_PROGRESS =
  '  NO_COLOR, FORCE_COLOR, TERM, CI    colour and progress lines (TERM=dumb: neither; CI: no progress)';
export const COMPLETION_ENV = '  SVCADM_CONFIG_DIR                  profile names are completed from the store here';

/** What every command that talks to the tenant reads (the default); the root's help lists it too. */
export const TENANT_ENVIRONMENT: readonly string[] = [CREDENTIALS, STORE_ENV, COLOUR_PROGRESS];
