import { checkPayloadSize, MAX_PAYLOAD_BYTES } from '../../api/http.js';
import {
  hasMorePages,
  listAnswer,
  type PassthroughAnswer,
  type PassthroughRequest,
  paginate,
  passthroughUrl,
  sendPassthrough,
} from '../../api/passthrough.js';
import { displayPath } from '../../api/request-path.js';
import { type FieldValue, fieldsAsBody, fieldsAsQuery } from '../../cli/api-fields.js';
import { confirm, mustAsk } from '../../cli/confirm.js';
import { correlationIdFor } from '../../cli/correlation-id.js';
import type { Invocation } from '../../cli/host.js';
import { WriteInFlight } from '../../cli/write-outcome.js';
import { CliError, UsageError } from '../../errors.js';
import { jsonDetailTable, jsonListTable } from '../../render/json-table.js';
import { neutralize } from '../../text/sanitize.js';
import { readTextBounded } from '../../util/bounded-read.js';
import type { ApiOptions } from './options.js';

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
  const write = opts.method !== 'GET' || opts.override !== undefined;
  const what = `${opts.method} ${displayPath(opts.path.segments)}${opts.override ? ` with ${opts.override.shown}` : ''}`;
  const ask =
    write &&
    mustAsk(inv, opts.yes, `refusing to send ${neutralize(what)} without confirmation`, 'pass --yes to send it');
  if (ask && readsStdin) {
    throw new UsageError('the body is read from the terminal, so the write cannot be confirmed there', 'pass --yes');
  }
  const { fields, body } = await readInputs(inv, opts);
  const request = buildRequest(opts, fields, body);
  const api = inv.services.api();
  checkPayloadSize({ url: passthroughUrl(api, request), body: request.body });
  if (ask) {
    const tenant = new URL(inv.services.credentials().origin).host;
    await confirm(inv, `Send ${neutralize(what)} to ${tenant}? [y/N] `, 'not confirmed: nothing was sent');
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
