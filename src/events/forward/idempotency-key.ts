import { createHash } from 'node:crypto';

/**
 * An id that is its own key: 1 to 255 visible ASCII characters. Any header value can hold it as it is, and 255 is
 * what keys are commonly bounded at by receivers (Stripe's `Idempotency-Key`, a database's VARCHAR(255)).
 */
const PLAIN_ID = /^[\x21-\x7e]{1,255}$/;

/** The key of one forwarded event, and how it was made. */
export interface EventKey {
  readonly value: string;
  /** `id`: the event's id as it is; `id-hash`: the SHA-256 of the id; `payload-hash`: of the payload as sent. */
  readonly from: 'id' | 'id-hash' | 'payload-hash';
}

/**
 * **The** key a receiver tells an event's deliveries apart by (`Idempotency-Key`, and any later header that names
 * the event, such as Standard Webhooks' `webhook-id`): the event's id when it is 1–255 visible ASCII characters;
 * otherwise `sha256:<hex of the id's UTF-8 bytes>`; for an event without an id (none, an empty one, or one that is
 * not a string), `sha256:<hex of the payload>`, the bytes POSTed. The same event has the same key on every attempt
 * and on a replay of its dead letter (docs/decisions/2026-11-28-every-forward-has-a-key.md).
 */
export function eventKey(id: string | undefined, payload: Uint8Array): EventKey {
  if (id === undefined || id === '') return { value: sha256Key(payload), from: 'payload-hash' };
  if (PLAIN_ID.test(id)) return { value: id, from: 'id' };
  return { value: sha256Key(Buffer.from(id, 'utf8')), from: 'id-hash' };
}

function sha256Key(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The notice of the first derived key of a run: the event it applied to, its key, and the rule. */
export function derivedKeyNotice(what: string, key: EventKey): string {
  return key.from === 'id-hash'
    ? `svcadm: ${what} has an id that is not 1–255 visible ASCII characters: its Idempotency-Key is ${key.value}, the SHA-256 of the id (so for every such event; an event without an id: the SHA-256 of its payload)`
    : `svcadm: ${what}: its Idempotency-Key is ${key.value}, the SHA-256 of its payload (so for every event without an id; an id that is not 1–255 visible ASCII characters: the SHA-256 of the id)`;
}
