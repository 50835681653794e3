/** The scopes the spec declares (its Authentication table), as `<verb>:<resource>`. */

const CRUD = ['create', 'read', 'update', 'delete'] as const;

const SCOPE_TABLE: ReadonlyArray<readonly [resources: string, verbs: readonly string[]]> = [
  [
    'actions authentication_methods client_credentials client_grants clients connection_profiles connections ' +
      'custom_domains custom_signing_keys directory_provisionings email_provider encryption_keys event_streams ' +
      'experimentation flows flows_vault_connections forms hooks log_streams network_acls organization_connections ' +
      'organization_discovery_domains organizations phone_providers phone_templates rate_limit_policies ' +
      'resource_servers roles rules scim_config self_service_profiles token_exchange_profiles ' +
      'user_attribute_profiles users vdcs_templates organization_clients',
    CRUD,
  ],
  ['email_templates connections_keys signing_keys', ['create', 'read', 'update']],
  [
    'anomaly_blocks current_user device_credentials flows_executions grants groups guardian_enrollments',
    ['read', 'delete'],
  ],
  ['refresh_tokens rules_configs sessions', ['read', 'update', 'delete']],
  ['branding', ['read', 'update', 'delete']],
  [
    'attack_protection client_keys event_deliveries guardian_factors mfa_policies prompts ' +
      'self_service_profile_custom_texts tenant_settings',
    ['read', 'update'],
  ],
  [
    'group_roles organization_client_grants organization_group_roles organization_invitations ' +
      'organization_member_roles organization_members role_members scim_token',
    ['create', 'read', 'delete'],
  ],
  ['current_user_device_credentials sso_access_tickets', ['create', 'delete']],
  [
    'client_summary events group_members logs logs_users organization_groups organization_member_effective_roles ' +
      'organization_member_role_source_groups organizations_summary stats user_effective_permissions ' +
      'user_effective_roles user_idp_tokens user_permission_source_roles user_role_source_groups',
    ['read'],
  ],
  ['client_token_vault_privileged_access current_user_identities current_user_metadata users_app_metadata', ['update']],
  ['guardian_enrollment_tickets user_tickets', ['create']],
];

export const ALL_SCOPES: readonly string[] = SCOPE_TABLE.flatMap(([resources, verbs]) =>
  resources.split(' ').flatMap((resource) => verbs.map((verb) => `${verb}:${resource}`)),
);

export const READ_SCOPES: readonly string[] = ALL_SCOPES.filter((scope) => scope.startsWith('read:'));

/** The scope each endpoint needs (api-notes.md fills in the ones the spec leaves open). */
export const ENDPOINT_SCOPES = {
  getRateLimitPolicy: 'read:rate_limit_policies',
  listRateLimitPolicies: 'read:rate_limit_policies',
  listConnections: 'read:connections',
  usersByEmail: 'read:users',
  listProvisionings: 'read:directory_provisionings',
  events: 'read:events',
  userPermissions: 'read:users',
  deleteConnectionUser: 'delete:users',
} as const;
