/** Quotes a value for a POSIX shell when it holds anything beyond a plain word, for hints users paste. */
export function shellWord(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
