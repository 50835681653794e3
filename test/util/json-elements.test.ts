import { describe, expect, it } from 'vitest';
import { type JsonPart, jsonParts } from '../../src/util/json-elements.js';

async function* cut(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function parts(text: string, size: number): Promise<JsonPart[]> {
  const out: JsonPart[] = [];
  for await (const part of jsonParts(cut(text, size))) out.push(part);
  return out;
}

describe('jsonParts: a JSON document read a piece at a time (yaml across tenants, issue 38 point 1)', () => {
  const tricky = [
    { s: 'a, b ] } [ {', q: 'quote \\" inside', back: '\\\\', nested: [[1, [2]], { a: [] }], u: '\u2028é😀' },
    'plain, with a comma]',
    42,
    null,
    [],
    {},
    [[], [[]]],
    true,
  ];
  it('gives each element of an array alone, cut anywhere, as JSON.parse reads it', async () => {
    for (const text of [
      JSON.stringify(tricky),
      JSON.stringify(tricky, null, 2),
      `  \n${JSON.stringify(tricky, null, 2)}\n`,
    ]) {
      for (const size of [1, 2, 3, 7, 64, text.length]) {
        expect(await parts(text, size)).toEqual([
          { kind: 'array' },
          ...tricky.map((value) => ({ kind: 'element', value })),
        ]);
      }
    }
  });

  it('an empty array is its opening alone; a document that is no array is one value; nothing is null', async () => {
    expect(await parts('[\n]\n', 1)).toEqual([{ kind: 'array' }]);
    expect(await parts('[]', 5)).toEqual([{ kind: 'array' }]);
    expect(await parts('{"a": [1, 2]}\n', 3)).toEqual([{ kind: 'value', value: { a: [1, 2] } }]);
    expect(await parts('"x"', 1)).toEqual([{ kind: 'value', value: 'x' }]);
    expect(await parts('', 1)).toEqual([{ kind: 'value', value: null }]);
    expect(await parts('\n', 1)).toEqual([{ kind: 'value', value: null }]);
  });
});
