import { compile, isRegistered, type JSONValue, TreeInterpreter } from '@jmespath-community/jmespath';
import { UsageError } from '../errors.js';

/** A compiled `--query`: a JMESPath expression applied to the JSON value a command prints. */
export interface Query {
  readonly text: string;
  /** The expression's result, always a JSON value (`null` when nothing matched). */
  search(value: unknown): unknown;
}

/** Function names an expression calls, wherever they are in its syntax tree. */
function calledFunctions(node: unknown, names: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) {
    for (const child of node) calledFunctions(child, names);
  } else if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    if (record.type === 'Function' && typeof record.name === 'string') names.add(record.name);
    for (const value of Object.values(record)) calledFunctions(value, names);
  }
  return names;
}

/** The library reads own and inherited properties alike (`constructor` is a function): only JSON goes out. */
function jsonValue(result: unknown): unknown {
  if (result === undefined || typeof result === 'function') return null;
  return result;
}

/**
 * Compiles `--query`; a syntax error or an unknown function is a usage error, before anything is sent. Errors that
 * depend on the data (a function given the wrong type) can only show when it is applied.
 */
export function compileQuery(text: string): Query {
  let ast: ReturnType<typeof compile>;
  try {
    ast = compile(text);
  } catch (err) {
    throw new UsageError(
      `invalid --query '${text}': ${(err as Error).message}`,
      'see https://jmespath.org for the syntax',
    );
  }
  const unknown = [...calledFunctions(ast)].filter((name) => !isRegistered(name));
  if (unknown.length > 0) {
    throw new UsageError(`invalid --query '${text}': unknown function ${unknown.map((n) => `${n}()`).join(', ')}`);
  }
  return {
    text,
    search(value) {
      try {
        return jsonValue(TreeInterpreter.search(ast, value as JSONValue));
      } catch (err) {
        throw new UsageError(`--query '${text}' failed on this data: ${(err as Error).message}`);
      }
    },
  };
}
