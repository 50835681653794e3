import { styleText } from 'node:util';

/** A style Node's `util.styleText` knows: a colour or modifier name, or several. */
export type Style = Parameters<typeof styleText>[0];

const NUL = '\u0000';
const painters = new Map<string, (text: string) => string>();

/**
 * The one place colour is made: Node's own `util.styleText` (Node 20.12+), asked once per style for its codes, which
 * are then put around text (JSON of 100,000 events is painted token by token). Whether colour is wanted is decided
 * once (global options: --no-color, NO_COLOR, FORCE_COLOR, a terminal) and passed in as `on`; so styleText must not
 * decide again from process.stdout (`validateStream`, true by default since Node 20.19 / 22.13): it is turned off.
 */
export function painter(style: Style, on: boolean): (text: string) => string {
  if (!on) return plain;
  const name = Array.isArray(style) ? style.join('+') : style;
  let paint = painters.get(name);
  if (paint === undefined) {
    const [open = '', close = ''] = styleText(style, NUL, { validateStream: false }).split(NUL);
    paint = (text) => `${open}${text}${close}`;
    painters.set(name, paint);
  }
  return paint;
}

/** `text` in `style`, when colour is on. */
export function paint(style: Style, text: string, on: boolean): string {
  return painter(style, on)(text);
}

function plain(text: string): string {
  return text;
}
