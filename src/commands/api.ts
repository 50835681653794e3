import { HTTP_METHODS, type HttpMethod } from '../api/http.js';
import { INTERFACE_PATHS } from '../api/interface-paths.js';
import { type ApiPath, parseApiPath } from '../api/request-path.js';
import { type Field, rawField, typedField } from '../cli/api-fields.js';
import { examples, option, type SvcadmCommand } from '../cli/command.js';
import { parseCorrelationId } from '../cli/correlation-id.js';
import type { Host } from '../cli/host.js';
import { parseHeaders } from '../cli/request-headers.js';
import { UsageError } from '../errors.js';

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
  if (method === 'GET' && raw.correlationId !== undefined) {
    throw new UsageError('--correlation-id is for writes', 'the service logs it for POST, PUT, PATCH and DELETE');
  }
  const stdinReaders = [
    raw.input,
    ...fields.map((f) => (typeof f.value === 'object' && f.value ? f.value.file : undefined)),
  ];
  if (stdinReaders.filter((s) => s === '-').length > 1) throw new UsageError('stdin can be read only once');
  return {
    method,
    path: parsedPath,
    fields,
    input: raw.input,
    headers: parseHeaders(raw.header ?? []),
    paginate: raw.paginate === true,
    correlationId: parseCorrelationId(raw.correlationId),
    yes: raw.yes === true,
  };
}

const METHOD_LIST = HTTP_METHODS.join(', ');

export function registerApiCommand(program: SvcadmCommand, host: Host): void {
  let position = 0;
  const inOrder = (text: string): FieldArg => ({ at: position++, text });
  program
    .command('api')
    .description('call any path of the interface (relative to /api/v2) with the active credentials')
    // A write (-X POST|PUT|PATCH|DELETE) asks on a terminal and needs --yes off one.
    .destructive()
    .usage('[options] [METHOD] <path>')
    .argument('<method-or-path>', `the path, or ${METHOD_LIST} followed by the path`)
    .argument('[path]', 'the path, when a method comes first')
    .completesArgument({ kind: 'choices', values: [...HTTP_METHODS, ...INTERFACE_PATHS] }, 0)
    .completesArgument({ kind: 'choices', values: INTERFACE_PATHS }, 1)
    .addOption(
      option(
        '-X, --method <method>',
        `${METHOD_LIST} (default: GET, whatever fields are given; a write needs --yes off a terminal)`,
      ).completes({
        kind: 'choices',
        values: HTTP_METHODS,
      }),
    )
    .addOption(
      option(
        '-f, --raw-field <key=value>',
        'a string field: a query parameter for GET (the default) and DELETE, else in the JSON body',
      ).repeated(inOrder),
    )
    .addOption(
      option(
        '-F, --field <key=value>',
        'a typed field: true, false, null and numbers as JSON, @file (@- stdin) read',
      ).repeated(inOrder),
    )
    .addOption(
      option(
        '--input <file>',
        'send this file (- for stdin) as the body, as it is; fields then go to the query',
      ).completes({ kind: 'file' }),
    )
    .addOption(option('-H, --header <header>', "add a header 'Name: value' (not Authorization)").repeated())
    .option('--paginate', 'follow every page of a GET list (checkpoint or offset) and print every item')
    .option('--correlation-id <id>', 'X-Correlation-ID of a write (default: a new UUID, printed on stderr)')
    .option('-y, --yes', 'send a write without asking (required off a terminal)')
    .addHelpText(
      'after',
      `
Reads unless told to write: unlike gh api, fields never turn a call into a POST. Without -X (or a METHOD first)
it is a GET and -f/-F are query parameters, as curl -G. POST, PUT, PATCH and DELETE ask on a terminal and need
--yes off one (exit 2, nothing sent), as connections delete-user does.
${examples(
  "svcadm api /users/'auth0|64b0c1'/permissions -f per_page=5",
  'svcadm api /connections-directory-provisionings --paginate -o ndjson | jq -r .connection_name',
  'svcadm api DELETE /connections/con_0aB1/users -f email=bob+ci@example.com --yes',
  "svcadm api PATCH /rate-limit-policies/rlp_01HZX3 -F 'configuration[limit]=200' -f 'configuration[action]=block'",
  'svcadm api POST /roles --input role.json --yes --correlation-id "$CI_JOB_ID"',
)}`,
    )
    .action(
      host.action<[string, string | undefined], ApiRaw>(async (inv, [first, second], raw) =>
        (await import('./runs.js')).runApi(inv, parseApiOptions(first, second, raw)),
      ),
    );
}
