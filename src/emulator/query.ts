import { HttpError } from './http-util.js';

/** Query-string validation with the service's 400 bodies (`errorCode: invalid_query_string`). */
export function queryError(message: string, property?: string): HttpError {
  const text =
    property === undefined
      ? `Query validation error: '${message}'`
      : `Query validation error: '${message}' on property ${property}`;
  return HttpError.service(400, text, 'invalid_query_string');
}

export function rejectUnknownParams(query: URLSearchParams, allowed: readonly string[]): void {
  for (const key of query.keys()) {
    if (!allowed.includes(key)) throw queryError(`Additional properties not allowed: ${key}`);
  }
}

/** The single value of a parameter; a repeated parameter is an error. */
export function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw queryError('Expected a single value but found an array', name);
  return values[0];
}

export function integerParam(
  query: URLSearchParams,
  name: string,
  bounds: { min: number; max?: number },
): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) throw queryError(`Expected type integer but found type string`, name);
  const value = Number(raw);
  if (value < bounds.min) throw queryError(`Value ${raw} is less than minimum ${bounds.min}`, name);
  if (bounds.max !== undefined && value > bounds.max) {
    throw queryError(`Value ${raw} is greater than maximum ${bounds.max}`, name);
  }
  return value;
}

export function booleanParam(query: URLSearchParams, name: string): boolean | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw queryError('Expected type boolean but found type string', name);
}
