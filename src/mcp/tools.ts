import type { ToolSpec } from './tool.js';
import { DELETE_CONNECTION_USER, LIST_CONNECTIONS } from './tools/connections.js';
import { DIFF_TENANTS } from './tools/diff.js';
import { READ_EVENTS } from './tools/events.js';
import { GET_RATE_LIMIT_POLICY, LIST_RATE_LIMIT_POLICIES } from './tools/policies.js';
import { LIST_DIRECTORY_PROVISIONINGS } from './tools/provisionings.js';
import { FIND_USERS_BY_EMAIL, LIST_USER_PERMISSIONS } from './tools/users.js';

/**
 * Every tool svcadm offers, in the order `tools/list` shows them. Each is one entry over an endpoint function of
 * `api/`: the HTTP, retries, validation and errors are the CLI's own. A tool is written in its group's file of
 * `tools/`, and offered once it is listed here. (`list_profiles`, in `tools/profiles.ts`, is offered only with
 * `svcadm mcp --profiles`.)
 */
export const TOOLS: readonly ToolSpec[] = [
  GET_RATE_LIMIT_POLICY,
  LIST_RATE_LIMIT_POLICIES,
  LIST_CONNECTIONS,
  FIND_USERS_BY_EMAIL,
  LIST_DIRECTORY_PROVISIONINGS,
  LIST_USER_PERMISSIONS,
  READ_EVENTS,
  DIFF_TENANTS,
  DELETE_CONNECTION_USER,
];
