import { HTTP_METHODS, type HttpMethod } from '../../api/http.js';
import { type WriteOverride, writeOverride } from '../../api/method-override.js';
import { type ApiPath, parseApiPath } from '../../api/request-path.js';
import { type Field, rawField, typedField } from '../../cli/api-fields.js';
import { parseCorrelationId } from '../../cli/correlation-id.js';
import { parseHeaders } from '../../cli/request-headers.js';
import { UsageError } from '../../errors.js';

/** A `-f` or `-F` value and where it stood among all of them: together they keep the order of the command line. */
export interface FieldArg {
  at: number;
  text: string;
}

export interface ApiRaw {
  method?: string;
  rawField?: FieldArg[];
  field?: FieldArg[];
  input?: string;
  header?: string[];
  paginate?: boolean;
  correlationId?: string;
  yes?: boolean;
}

export interface ApiOptions {
  method: HttpMethod;
  /** A method-override header or `_method` field that makes this request a write whatever its method. */
  override: WriteOverride | undefined;
  path: ApiPath;
  fields: Field[];
  /** A file, or `-` for stdin: the body as it is. */
  input: string | undefined;
  headers: Record<string, string>;
  paginate: boolean;
  correlationId: string | undefined;
  yes: boolean;
}

function methodOf(text: string): HttpMethod | undefined {
  const upper = text.toUpperCase();
  return (HTTP_METHODS as readonly string[]).includes(upper) ? (upper as HttpMethod) : undefined;
}

/** `[METHOD] <path>` and `-X`: the method named once (either way is as explicit), else GET whatever else is given. */
function resolveMethod(first: string, second: string | undefined, raw: ApiRaw) {
  const methods = HTTP_METHODS.join(', ');
  let positional: HttpMethod | undefined;
  let path = first;
  if (second !== undefined) {
    positional = methodOf(first);
    if (positional === undefined) throw new UsageError(`unknown method '${first}'`, `use ${methods}`);
    path = second;
  } else if (methodOf(first) !== undefined) {
    throw new UsageError(`give a path after ${first.toUpperCase()}`, 'e.g. svcadm api GET /users/{id}/permissions');
  }
  const flag = raw.method === undefined ? undefined : methodOf(raw.method);
  if (raw.method !== undefined && flag === undefined) {
    throw new UsageError(`unknown method '${raw.method}'`, `use ${methods}`);
  }
  if (positional !== undefined && flag !== undefined && positional !== flag) {
    throw new UsageError(`the method is given twice: ${positional} and -X ${flag}`);
  }
  return { method: positional ?? flag ?? 'GET', path };
}

export function parseApiOptions(first: string, second: string | undefined, raw: ApiRaw): ApiOptions {
  const fields = [
    ...(raw.rawField ?? []).map((arg) => ({ at: arg.at, field: rawField(arg.text) })),
    ...(raw.field ?? []).map((arg) => ({ at: arg.at, field: typedField(arg.text) })),
  ]
    .sort((a, b) => a.at - b.at)
    .map((f) => f.field);
  if (raw.input === '') throw new UsageError('--input needs a file, or - for stdin');
  const { method, path } = resolveMethod(first, second, raw);
  const parsedPath = parseApiPath(path);
  if (method === 'GET' && parsedPath.segments.length === 1 && parsedPath.segments[0] === 'events') {
    throw new UsageError('GET /events is a stream of Server-Sent Events', "use 'svcadm events tail'");
  }
  if (method === 'GET' && raw.input !== undefined) {
    throw new UsageError('a GET has no body: --input needs another method', 'name it, e.g. -X POST');
  }
  if (raw.paginate && method !== 'GET') throw new UsageError(`--paginate follows the pages of a GET, not a ${method}`);
  const headers = parseHeaders(raw.header ?? []);
  const override = writeOverride(headers, [
    ...parsedPath.query,
    ...fields.map((f): [string, string | { file: string }] => [
      f.name,
      typeof f.value === 'object' && f.value !== null ? f.value : String(f.value ?? ''),
    ]),
  ]);
  if (raw.paginate && override) {
    throw new UsageError(`--paginate follows the pages of a read, and ${override.shown} makes this a write`);
  }
  if (method === 'GET' && override === undefined && raw.correlationId !== undefined) {
    throw new UsageError('--correlation-id is for writes', 'the service logs it for POST, PUT, PATCH and DELETE');
  }
  const stdinReaders = [
    raw.input,
    ...fields.map((f) => (typeof f.value === 'object' && f.value ? f.value.file : undefined)),
  ];
  if (stdinReaders.filter((s) => s === '-').length > 1) throw new UsageError('stdin can be read only once');
  return {
    method,
    override,
    path: parsedPath,
    fields,
    input: raw.input,
    headers,
    paginate: raw.paginate === true,
    correlationId: parseCorrelationId(raw.correlationId),
    yes: raw.yes === true,
  };
}
