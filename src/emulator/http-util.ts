import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  410: 'Gone',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  421: 'Misdirected Request',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? 'Error';
}

/** The service's error body: `{statusCode, error, message, errorCode}`. */
export interface ServiceErrorBody {
  statusCode: number;
  error: string;
  message: string;
  errorCode?: string;
  attributes?: Record<string, string>;
}

export function serviceError(
  status: number,
  message: string,
  errorCode?: string,
  attributes?: Record<string, string>,
): ServiceErrorBody {
  const body: ServiceErrorBody = { statusCode: status, error: statusText(status), message };
  if (errorCode !== undefined) body.errorCode = errorCode;
  if (attributes !== undefined) body.attributes = attributes;
  return body;
}

/** Thrown by handlers; the server turns it into the service's error response. */
export class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    super(typeof body === 'object' && body !== null && 'message' in body ? String(body.message) : `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }

  static service(status: number, message: string, errorCode?: string): HttpError {
    return new HttpError(status, serviceError(status, message, errorCode));
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, headers);
  res.end();
}

export class PayloadTooLarge extends Error {}

/** Reads the request body, refusing anything above 1 MB (declared or actual). */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw new PayloadTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new PayloadTooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

export function payloadTooLargeBody(): ServiceErrorBody {
  return serviceError(413, 'Payload too large: the maximum request body is 1 megabyte.', 'payload_too_large');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
