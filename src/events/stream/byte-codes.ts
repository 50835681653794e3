/** The bytes the JSON and SSE scanners look for (`envelope-id.ts`, `event-payload.ts`, `sse-parser.ts`). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const LF = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
