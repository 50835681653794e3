import { UsageError } from '../errors.js';

/** The longest e-mail address taken (RFC 5321's path limit less its brackets). */
export const EMAIL_MAX = 254;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * `--email` of `users find` and `connections delete-user` (and the MCP tools' `email`): `what` says what it is for,
 * `name` how the caller calls it (the option, or the tool's argument).
 */
export function parseEmail(
  email: string | undefined,
  what = 'the e-mail of the user to delete',
  name = '--email',
): string {
  if (email === undefined) throw new UsageError(`${name} is required`, what);
  if (email.length > EMAIL_MAX || !EMAIL.test(email) || /[\u0000-\u001f\u007f]/.test(email)) {
    throw new UsageError(`${name} '${email}' is not a valid e-mail address`);
  }
  return email;
}
