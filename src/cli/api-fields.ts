import { UsageError } from '../errors.js';

/** A JSON value a field can carry. */
export type FieldValue = string | number | boolean | null;

/** `-f`/`-F` as given: the value, or the file (`-` for stdin) it is read from (`-F key=@file`). */
export interface Field {
  flag: '-f' | '-F';
  name: string;
  value: FieldValue | { file: string };
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** `name`, `name[key]`, `name[key][]`: how a body field says where it goes. */
const KEY_PATH = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

function split(flag: '-f' | '-F', text: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} '${text}' is not key=value`);
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/** `-f key=value`: the value is a string, as typed. */
export function rawField(text: string): Field {
  const [name, value] = split('-f', text);
  return { flag: '-f', name, value };
}

/**
 * `-F key=value`: `true`, `false` and `null` are JSON literals, numbers are numbers (an integer beyond 2^53 is refused:
 * it would not arrive exactly), `@file` is the file's text (`@-`: stdin); anything else is a string.
 */
export function typedField(text: string): Field {
  const [name, value] = split('-F', text);
  if (value === 'true' || value === 'false') return { flag: '-F', name, value: value === 'true' };
  if (value === 'null') return { flag: '-F', name, value: null };
  if (value.startsWith('@')) {
    const file = value.slice(1);
    if (file === '') throw new UsageError(`-F '${text}': give a file after @ (or @- for stdin)`);
    return { flag: '-F', name, value: { file } };
  }
  if (NUMBER.test(value)) {
    const number = Number(value);
    const integral = !/[.eE]/.test(value);
    if (!Number.isFinite(number) || (integral && !Number.isSafeInteger(number))) {
      throw new UsageError(`-F '${text}': the number cannot be sent exactly`, 'use -f to send it as a string');
    }
    return { flag: '-F', name, value: number };
  }
  return { flag: '-F', name, value };
}

/** Query parameters: names as given, a repeated name repeats the parameter; typed values as their text. */
export function fieldsAsQuery(fields: ReadonlyArray<{ name: string; value: FieldValue }>): Array<[string, string]> {
  return fields.map(({ name, value }) => [name, value === null ? '' : String(value)]);
}

type JsonObject = { [key: string]: JsonValue };
type JsonValue = FieldValue | JsonValue[] | JsonObject;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON body from the fields, in order: `name=v`, nested `name[key]=v`, arrays `name[]=v` (appended). A name given
 * twice, or used both as a value and as an object or array, is refused.
 */
export function fieldsAsBody(fields: ReadonlyArray<{ name: string; value: FieldValue }>): JsonObject {
  const body: JsonObject = {};
  for (const { name, value } of fields) {
    const match = KEY_PATH.exec(name);
    if (!match) throw new UsageError(`field name '${name}' is not name, name[key] or name[]`);
    const keys = [match[1] as string, ...[...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] as string)];
    let node: JsonObject | JsonValue[] = body;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const last = i === keys.length - 1;
      const nextIsAppend = keys[i + 1] === '';
      const container: JsonValue = last ? value : nextIsAppend ? [] : {};
      if (Array.isArray(node)) {
        if (key !== '') throw new UsageError(`field '${name}': '${keys.slice(0, i).join('.')}' is an array`);
        node.push(container);
        if (!last) node = container as JsonObject | JsonValue[];
        continue;
      }
      if (key === '') throw new UsageError(`field '${name}': [] must follow a name`);
      const existing: JsonValue | undefined = node[key];
      if (last) {
        if (existing !== undefined) throw new UsageError(`field '${name}' is given twice`, 'use name[]= for an array');
        node[key] = value;
        break;
      }
      if (existing === undefined) {
        node[key] = container;
        node = container as JsonObject | JsonValue[];
      } else if ((nextIsAppend && Array.isArray(existing)) || (!nextIsAppend && isObject(existing))) {
        node = existing;
      } else {
        throw new UsageError(`field '${name}' conflicts with an earlier field`);
      }
    }
  }
  return body;
}
