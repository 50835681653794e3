/**
 * Help text wrapped to the terminal, never inside a word (commander wraps its own option lists; this catches the
 * rest: usage lines, examples, sections commands add). A long line continues:
 * - an example (`  $ svcadm …`): at a space outside quotes, with ` \` so the lines still paste as one command, a
 *   trailing `# comment` kept whole;
 * - a two-column line (`  NAME      meaning`): under its second column;
 * - `Usage: …`: under what follows `Usage: `;
 * - anything else: at its own indentation.
 * A single word wider than the room is left whole.
 */
export function wrapHelp(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => (line.length <= width ? [line] : wrapLine(line, width)))
    .join('\n');
}

const EXAMPLE = /^( *)\$ /;
const TWO_COLUMNS = /^( *\S(?:\S| (?=\S))*)( {2,})\S/;

function wrapLine(line: string, width: number): string[] {
  const example = EXAMPLE.exec(line);
  if (example) return wrapCommand(line, (example[1] ?? '').length + 4, width);
  const indent = /^ */.exec(line)?.[0].length ?? 0;
  const columns = TWO_COLUMNS.exec(line);
  let hanging = indent;
  if (line.startsWith('Usage: ')) hanging = 'Usage: '.length;
  else if (columns) {
    const at = (columns[1] ?? '').length + (columns[2] ?? '').length;
    if (at <= width - 20) hanging = at;
  }
  return wrapWords(line, hanging, width);
}

/** Breaks at the last space that fits, keeping `hanging` columns of indentation on the lines after the first. */
function wrapWords(line: string, hanging: number, width: number): string[] {
  const out: string[] = [];
  let rest = line;
  let start = /^ */.exec(line)?.[0].length ?? 0; // never break inside the first line's own indentation
  while (rest.length > width) {
    let at = rest.lastIndexOf(' ', width);
    if (at <= start) at = rest.indexOf(' ', width); // a word wider than the room stays whole
    if (at <= start || at === -1) break;
    out.push(rest.slice(0, at).trimEnd());
    rest = `${' '.repeat(hanging)}${rest.slice(at).trimStart()}`;
    start = hanging;
  }
  out.push(rest);
  return out;
}

/** Splits a shell line into words at spaces outside quotes. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === ' ') {
      if (word !== '') words.push(word);
      word = '';
      continue;
    }
    word += ch;
  }
  if (word !== '') words.push(word);
  return words;
}

function wrapCommand(line: string, hanging: number, width: number): string[] {
  const prompt = EXAMPLE.exec(line)?.[0] ?? '';
  const all = shellWords(line.slice(prompt.length));
  const hash = all.findIndex((word) => word.startsWith('#'));
  // A comment is never broken: a ` \` inside it would make its rest a command when pasted. It may go whole to the
  // next line, after the ` \`, where it still ends the command.
  const words = hash === -1 ? all : [...all.slice(0, hash), all.slice(hash).join(' ')];
  const out: string[] = [];
  let current = prompt.trimEnd();
  let empty = true;
  for (const word of words) {
    // Room for ` \` at the end of a line that goes on.
    if (!empty && current.length + 1 + word.length + 2 > width) {
      out.push(`${current} \\`);
      current = `${' '.repeat(hanging)}${word}`;
      continue;
    }
    current += `${empty ? ' ' : ' '}${word}`;
    empty = false;
  }
  out.push(current);
  return out;
}
