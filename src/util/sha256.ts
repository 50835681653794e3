import { sha256 } from '@noble/hashes/sha2.js';

/**
 * SHA-256 of a string's UTF-8 bytes, in JavaScript: the token cache's check runs on every command with a cached
 * token, which then need not load `node:crypto` (src/util/node-crypto.ts says what that saves). The digests are
 * node:crypto's, so files written before stay valid.
 */
export function sha256Of(text: string): Buffer {
  const digest = sha256(Buffer.from(text, 'utf8'));
  return Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength);
}
