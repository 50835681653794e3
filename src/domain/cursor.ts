/**
 * A position the service hands out (an event offset, a pagination checkpoint) is adopted only when it is 1 to 1024
 * visible ASCII characters: the spec bounds `from` at 1024, and nothing else can be saved, sent back or printed in
 * a command line without a second thought.
 */
export const CURSOR_MAX = 1024;

const CURSOR = new RegExp(`^[\\x21-\\x7e]{1,${CURSOR_MAX}}$`);

export function isCursor(text: string): boolean {
  return CURSOR.test(text);
}

export const CURSOR_RULE = `1 to ${CURSOR_MAX} visible ASCII characters`;
