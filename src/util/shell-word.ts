/**
 * A value as one word for bash, zsh and fish alike, for lines users paste: plain words stay as they are; anything
 * else is single-quoted, with `'` and `\` written outside the quotes as `\'` and `\\` (fish reads those two escapes
 * inside single quotes too, so they must never be there).
 */
export function shellWord(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  const parts = value.split(/(['\\])/).filter((part) => part !== '');
  return parts.map((part) => (part === "'" || part === '\\' ? `\\${part}` : `'${part}'`)).join('') || "''";
}
