import { checkPayloadSize, HTTP_METHODS, type HttpMethod, MAX_PAYLOAD_BYTES } from '../api/http.js';
import { INTERFACE_PATHS } from '../api/interface-paths.js';
import {
  hasMorePages,
  listAnswer,
  type PassthroughAnswer,
  type PassthroughRequest,
  paginate,
  passthroughUrl,
  sendPassthrough,
} from '../api/passthrough.js';
import { type ApiPath, displayPath, parseApiPath } from '../api/request-path.js';
import { type Field, type FieldValue, fieldsAsBody, fieldsAsQuery, rawField, typedField } from '../cli/api-fields.js';
import { examples, option, type SvcadmCommand } from '../cli/command.js';
import { confirm, mustAsk } from '../cli/confirm.js';
import { correlationIdFor, parseCorrelationId } from '../cli/correlation-id.js';
import type { Host, Invocation } from '../cli/host.js';
import { parseHeaders } from '../cli/request-headers.js';
import { WriteInFlight } from '../cli/write-outcome.js';
import { CliError, UsageError } from '../errors.js';
import { jsonDetailTable, jsonListTable } from '../render/json-table.js';
import { neutralize } from '../render/sanitize.js';
import { readTextBounded } from '../util/bounded-read.js';
import { keepYoungGenerationSmall } from '../util/young-generation.js';

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
      host.action<[string, string | undefined], ApiRaw>((inv, [first, second], raw) =>
        runApi(inv, parseApiOptions(first, second, raw)),
      ),
    );
}

/** The values of `-F key=@file` and the `--input` body, read (bounded) before anything is sent. */
async function readInputs(inv: Invocation, opts: ApiOptions) {
  const fields: Array<{ name: string; value: FieldValue }> = [];
  for (const field of opts.fields) {
    const value =
      typeof field.value === 'object' && field.value !== null
        ? await readTextBounded(field.value.file, inv.io.stdin, MAX_PAYLOAD_BYTES, `-F ${field.name}`)
        : field.value;
    fields.push({ name: field.name, value });
  }
  let body: string | undefined;
  if (opts.input !== undefined) {
    body = await readTextBounded(opts.input, inv.io.stdin, MAX_PAYLOAD_BYTES, '--input');
    const type = opts.headers['content-type'] ?? 'application/json';
    if (/[/+]json\b/i.test(type) && body.trim() !== '') {
      try {
        JSON.parse(body);
      } catch (err) {
        throw new UsageError(`--input is not JSON: ${(err as Error).message}`, 'set -H Content-Type for another type');
      }
    }
  }
  return { fields, body };
}

/** The request: fields are query parameters for GET and DELETE (and beside --input), else the JSON body. */
function buildRequest(opts: ApiOptions, fields: Array<{ name: string; value: FieldValue }>, input: string | undefined) {
  const inQuery = opts.method === 'GET' || opts.method === 'DELETE' || opts.input !== undefined;
  const body = inQuery ? input : fields.length > 0 ? JSON.stringify(fieldsAsBody(fields)) : undefined;
  const request: PassthroughRequest = {
    method: opts.method,
    segments: opts.path.segments,
    query: [...opts.path.query, ...(inQuery ? fieldsAsQuery(fields) : [])],
    headers: opts.headers,
    body,
  };
  return request;
}

export async function runApi(inv: Invocation, opts: ApiOptions): Promise<void> {
  const { io } = inv;
  const readsStdin =
    opts.input === '-' || opts.fields.some((f) => typeof f.value === 'object' && f.value?.file === '-');
  const write = opts.method !== 'GET';
  const shown = displayPath(opts.path.segments);
  const ask =
    write &&
    mustAsk(
      inv,
      opts.yes,
      `refusing to send ${opts.method} ${neutralize(shown)} without confirmation`,
      'pass --yes to send it',
    );
  if (ask && readsStdin) {
    throw new UsageError('the body is read from the terminal, so the write cannot be confirmed there', 'pass --yes');
  }
  const { fields, body } = await readInputs(inv, opts);
  const request = buildRequest(opts, fields, body);
  const api = inv.services.api();
  checkPayloadSize({ url: passthroughUrl(api, request), body: request.body });
  if (ask) {
    const tenant = new URL(inv.services.credentials().origin).host;
    await confirm(
      inv,
      `Send ${opts.method} ${neutralize(shown)} to ${tenant}? [y/N] `,
      'not confirmed: nothing was sent',
    );
  }
  let correlationId: string | undefined;
  let inFlight: WriteInFlight | undefined;
  if (write) {
    correlationId = correlationIdFor(opts.correlationId, io);
    inv.out.aside({ correlation_id: correlationId }, `Correlation id: ${correlationId}`);
    request.headers = { ...request.headers, 'x-correlation-id': correlationId };
    inFlight = new WriteInFlight(opts.method, correlationId);
    request.onWire = inFlight.onWire;
  }
  try {
    if (!opts.paginate) return await printAnswer(inv, await sendPassthrough(api, request));
    keepYoungGenerationSmall();
    const result = await paginate(api, request);
    if (result.kind === 'single') return await printAnswer(inv, result.answer);
    return await inv.out.all(result.pages, jsonListTable);
  } catch (err) {
    const explained = inFlight?.explain(err) ?? err;
    // A failed write can be found in the tenant logs too.
    if (explained === err && err instanceof CliError && err.kind !== 'usage' && correlationId !== undefined) {
      err.addHint(`correlation id ${correlationId}`);
    }
    throw explained;
  }
}

async function printAnswer(inv: Invocation, answer: PassthroughAnswer): Promise<void> {
  if (answer.body === undefined) {
    return inv.out.empty(`${answer.status} ${neutralize(answer.statusText)}: the service sent no content`);
  }
  const list = listAnswer(answer.body, false);
  if (list === undefined) return inv.out.one(answer.body, () => jsonDetailTable(answer.body));
  return inv.out.page(answer.body, list.items, jsonListTable, {
    more: () => (hasMorePages(list) ? { all: 'run it again with --paginate for every page' } : undefined),
  });
}
