/** The environment variables that stand in for the credential flags: read, listed in help and named in hints. */
export const CREDENTIAL_VARIABLES = {
  domain: 'SVCADM_DOMAIN',
  clientId: 'SVCADM_CLIENT_ID',
  clientSecret: 'SVCADM_CLIENT_SECRET',
  clientAssertionKey: 'SVCADM_CLIENT_ASSERTION_KEY',
  clientAssertionAlg: 'SVCADM_CLIENT_ASSERTION_ALG',
  token: 'SVCADM_TOKEN',
  authUrl: 'SVCADM_AUTH_URL',
  audience: 'SVCADM_AUDIENCE',
} as const satisfies Record<string, string>;

/** Stands in for -p, --profile. */
export const PROFILE_VARIABLE = 'SVCADM_PROFILE';
