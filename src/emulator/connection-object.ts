import type { Random } from './random.js';

/** The connection object the spec describes for connection events, with every documented field. */
export interface ConnectionObject {
  id: string;
  name: string;
  strategy: string;
  authentication: { active: boolean };
  display_name: string;
  enabled_clients: string[];
  is_domain_connection: boolean;
  metadata: Record<string, string>;
  realms: string[];
  connected_accounts: { active: boolean; cross_app_access: boolean };
  options: Record<string, unknown>;
  show_as_button: boolean;
}

const ORGS = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'tyrell', 'cyberdyne', 'wonka'];

/** A realistic OIDC connection; every value is drawn from `rng`, so it is a pure function of the seed. */
export function makeConnectionObject(rng: Random, tenantDomain: string): ConnectionObject {
  const org = rng.pick(ORGS);
  const name = `${org}-oidc-${rng.id(4)}`;
  const issuer = `https://login.${org}.example.com/`;
  const alg = 'ES256';
  return {
    id: `con_${rng.id(16)}`,
    name,
    strategy: 'oidc',
    authentication: { active: true },
    display_name: `${org[0]?.toUpperCase()}${org.slice(1)} SSO`,
    enabled_clients: [rng.id(32), rng.id(32)].slice(0, rng.int(1, 2)),
    is_domain_connection: rng.bool(0.2),
    metadata: { team: org, cost_center: String(rng.int(1000, 9999)) },
    realms: [name],
    connected_accounts: { active: rng.bool(0.3), cross_app_access: false },
    options: {
      client_id: rng.id(24),
      authorization_endpoint: `${issuer}authorize`,
      icon_url: `https://cdn.${org}.example.com/logo.png`,
      issuer,
      jwks_uri: `${issuer}.well-known/jwks.json`,
      scope: 'openid profile email',
      tenant_domain: tenantDomain,
      token_endpoint: `${issuer}oauth/token`,
      userinfo_endpoint: `${issuer}userinfo`,
      discovery_url: `${issuer}.well-known/openid-configuration`,
      connection_settings: { pkce: 'auto' },
      domain_aliases: [`${org}.example.com`],
      non_persistent_attrs: ['ethnicity', 'gender'],
      dpop_signing_alg: alg,
      token_endpoint_auth_signing_alg: alg,
      id_token_signed_response_algs: [alg],
      federated_connections_access_tokens: { active: false },
      id_token_session_expiry_supported: true,
      send_back_channel_nonce: rng.bool(),
      useOauthSpecScope: true,
      schema_version: 'openid-1.0.0',
      set_user_root_attributes: 'on_each_login',
      token_endpoint_auth_method: 'client_secret_post',
      token_endpoint_jwtca_aud_format: 'issuer',
      upstream_params: {},
      attribute_map: {
        attributes: { nickname: 'preferred_username' },
        userinfo_scope: 'openid email profile',
        mapping_mode: 'bind_all',
      },
      type: 'back_channel',
      oidc_metadata: {
        authorization_endpoint: `${issuer}authorize`,
        issuer,
        jwks_uri: `${issuer}.well-known/jwks.json`,
        end_session_endpoint: `${issuer}logout`,
        op_policy_uri: `https://${org}.example.com/policy`,
        op_tos_uri: `https://${org}.example.com/tos`,
        registration_endpoint: `${issuer}register`,
        service_documentation: `https://docs.${org}.example.com/`,
        token_endpoint: `${issuer}oauth/token`,
        userinfo_endpoint: `${issuer}userinfo`,
        claims_parameter_supported: false,
        request_parameter_supported: true,
        request_uri_parameter_supported: false,
        require_request_uri_registration: false,
        id_token_signing_alg_values_supported: ['RS256', alg],
        acr_values_supported: [],
        claim_types_supported: ['normal'],
        claims_locales_supported: ['en'],
        claims_supported: ['sub', 'email', 'email_verified', 'name', 'given_name', 'family_name'],
        code_challenge_methods_supported: ['S256'],
        display_values_supported: ['page'],
        dpop_signing_alg_values_supported: [alg],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        id_token_encryption_alg_values_supported: [],
        id_token_encryption_enc_values_supported: [],
        request_object_encryption_alg_values_supported: [],
        request_object_encryption_enc_values_supported: [],
        request_object_signing_alg_values_supported: ['RS256'],
        response_modes_supported: ['query', 'fragment', 'form_post'],
        response_types_supported: ['code'],
        scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
        subject_types_supported: ['public'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt'],
        token_endpoint_auth_signing_alg_values_supported: [alg],
        ui_locales_supported: ['en'],
        userinfo_encryption_alg_values_supported: [],
        userinfo_encryption_enc_values_supported: [],
        userinfo_signing_alg_values_supported: [],
      },
    },
    show_as_button: rng.bool(0.7),
  };
}
