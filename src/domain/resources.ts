/** The spec's resources, as the service sends them. */

export type RateLimitAction = 'allow' | 'block' | 'log' | 'redirect';

export interface RateLimitConfiguration {
  action: RateLimitAction;
  limit?: number;
  redirect_uri?: string;
}

export interface RateLimitPolicy {
  id: string;
  resource: 'oauth_authentication_api';
  consumer: 'client';
  consumer_selector: string;
  configuration: RateLimitConfiguration;
  created_at?: string;
  updated_at?: string;
}

export interface RateLimitPolicyPage {
  rate_limit_policies: RateLimitPolicy[];
  next?: string;
}

/** A connection as `GET /connections` lists it (database connections have `strategy: "auth0"`). */
export interface Connection {
  id: string;
  name?: string;
  display_name?: string;
  strategy?: string;
  realms?: string[];
  is_domain_connection?: boolean;
  enabled_clients?: string[];
}

export interface ConnectionPage {
  connections: Connection[];
  next?: string;
}

export interface UserIdentity {
  connection?: string;
  provider?: string;
  user_id?: string;
  isSocial?: boolean;
}

/** A user as `GET /users-by-email` lists it. */
export interface EmailUser {
  user_id: string;
  email?: string;
  name?: string;
  identities?: UserIdentity[];
  created_at?: string;
  updated_at?: string;
}

export interface ProvisioningMapping {
  svc: string;
  idp: string;
}

export interface DirectoryProvisioning {
  connection_id?: string;
  connection_name?: string;
  strategy?: string;
  mapping?: ProvisioningMapping[];
  synchronize_automatically?: boolean;
  /** Which groups are synchronised: `all`, `off` or `selected` (api-notes, round 4). */
  synchronize_groups?: string;
  created_at?: string;
  updated_at?: string;
  last_synchronization_at?: string;
  last_synchronization_status?: string;
  last_synchronization_error?: string;
}

export interface DirectoryProvisioningPage {
  directory_provisionings: DirectoryProvisioning[];
  next?: string;
}

export interface UserPermission {
  sources?: unknown;
  resource_server_identifier?: string;
  permission_name?: string;
  resource_server_name?: string;
  description?: string;
}

export interface UserPermissionTotals {
  start: number;
  limit: number;
  total: number;
  permissions: UserPermission[];
}

/** A `sources` entry as the service sends it (the spec leaves the type open: read it leniently). */
export interface PermissionSource {
  source_id?: string;
  source_name?: string;
  source_type?: string;
}
