/**
 * A string's 64-bit fingerprint (cyrb53's mixing of its UTF-16 code units), written into `out` as two 32-bit lanes,
 * [high, low]: no allocation, for the hot paths that remember many ids (the pages' de-duplication, the stream's
 * replay memory).
 */
export function fingerprintInto(text: string, out: Uint32Array): void {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  out[0] = h2 >>> 0;
  out[1] = h1 >>> 0;
}
