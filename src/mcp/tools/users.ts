import * as z from 'zod';
import { findUsersByEmail, listUserPermissions, permissionItems } from '../../api/endpoints.js';
import { PERMISSIONS_PAGE_MAX } from '../../api/pagers.js';
import { EMAIL_MAX, parseEmail } from '../../arguments/email.js';
import { UsageError } from '../../errors.js';
import { neutralize } from '../../text/sanitize.js';
import { fitItems } from '../results.js';
import {
  cursorOut,
  defineTool,
  omittedOut,
  pageOutcome,
  READS,
  serviceObject,
  TOOL_PAGE_SIZE,
  type ToolSpec,
} from '../tool.js';

/** `find_users_by_email`: every user with an e-mail address, and so the user ids the other tools take. */
export const FIND_USERS_BY_EMAIL: ToolSpec = defineTool({
  name: 'find_users_by_email',
  title: 'Find users by e-mail',
  description:
    'Every user with this e-mail address, in every connection that holds one (user_id, connection in identities, name, created_at): the user ids other tools take. An empty list when no user has it. Needs the scope read:users.',
  writes: false,
  annotations: READS,
  input: z.strictObject({
    email: z.string().min(1).max(EMAIL_MAX).describe('the e-mail address to look up'),
  }),
  // One answer, not pages: no cursor.
  output: z.object({ users: z.array(serviceObject), omitted: omittedOut }),
  async run(input, env) {
    const email = parseEmail(input.email, 'the address to look up', 'email');
    const { data } = await findUsersByEmail(env.api(), email);
    const { kept, omitted } = fitItems(data, env.secrets);
    const n = data.length;
    const found = n === 0 ? 'No user has this e-mail' : `${n} ${n === 1 ? 'user has' : 'users have'} this e-mail`;
    const left = omitted > 0 ? `; ${omitted} of them left out to keep the result small` : '';
    return { data: { users: kept, ...(omitted > 0 ? { omitted } : {}) }, text: `${found}${left}.` };
  },
});

/** `list_user_permissions`: a page of a user's permissions, with the total; its cursor is `<page>/<per page>`. */
export const LIST_USER_PERMISSIONS: ToolSpec = defineTool({
  name: 'list_user_permissions',
  title: 'List a user’s permissions',
  description:
    'One page of the permissions granted to a user (API identifier, permission name, description, and whether it comes directly or through a role), with the total. Pass next_cursor back as cursor for the next page. Needs the scope read:users.',
  writes: false,
  annotations: READS,
  input: z.strictObject({
    user_id: z.string().min(1).max(1024).describe("the user's id, e.g. auth0|5f7c8ec7c33c6c004bbafe82"),
    cursor: z.string().max(32).optional().describe('the next_cursor of the previous page; omit for the first page'),
    per_page: z
      .number()
      .int()
      .min(1)
      .max(PERMISSIONS_PAGE_MAX)
      .optional()
      .describe(`results per page, 1 to ${PERMISSIONS_PAGE_MAX} (default ${TOOL_PAGE_SIZE})`),
  }),
  output: z.object({
    permissions: z.array(serviceObject),
    total: z.number().int().nullable().describe('how many permissions the user has, when the service said'),
    next_cursor: cursorOut,
    omitted: omittedOut,
  }),
  async run(input, env) {
    if (input.user_id.trim() === '') throw new UsageError('the user id must not be empty');
    const at =
      input.cursor === undefined ? { page: 0, perPage: input.per_page ?? TOOL_PAGE_SIZE } : offsetCursor(input.cursor);
    const { data } = await listUserPermissions(env.api(), input.user_id, { ...at, includeTotals: true });
    const items = permissionItems(data);
    const total = Array.isArray(data) ? undefined : data.total;
    // The service may serve fewer than asked (a page cap): the next page is counted in what it served.
    const served = Array.isArray(data) ? at.perPage : data.limit || at.perPage;
    const start = at.page * served;
    const more = total === undefined ? items.length >= served : start + items.length < total;
    const next = more && items.length > 0 ? `${at.page + 1}/${served}` : null;
    const outcome = pageOutcome('permissions', { one: 'permission', many: 'permissions' }, items, next, env);
    if ('data' in outcome) outcome.data.total = total ?? null;
    return outcome;
  },
});

const OFFSET_CURSOR = /^(\d{1,6})\/(\d{1,3})$/;

/** `list_user_permissions`'s cursor: `<page>/<per page>`, as it gave it. */
function offsetCursor(cursor: string): { page: number; perPage: number } {
  const match = OFFSET_CURSOR.exec(cursor);
  const perPage = Number(match?.[2]);
  if (!match || perPage < 1 || perPage > PERMISSIONS_PAGE_MAX) {
    throw new UsageError(
      `cursor '${neutralize(cursor)}' is not a next_cursor this tool gave`,
      'omit it to start at the first page',
    );
  }
  return { page: Number(match[1]), perPage };
}
