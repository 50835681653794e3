/**
 * Joins pieces of bytes into one, in order. Pieces that lie end to end in the same memory are taken as one view: a
 * batch of event lines the stream's fast path wrote one after the other (sse-fast-path.ts) is then joined without
 * a copy, and only pieces from different places are copied into a new buffer.
 */
export class ByteJoiner {
  readonly #views: Uint8Array[] = [];
  #length = 0;
  #buffer: ArrayBufferLike | undefined;
  #start = 0;
  #end = 0;

  add(piece: Uint8Array): void {
    this.#length += piece.length;
    if (piece.buffer === this.#buffer && piece.byteOffset === this.#end) {
      this.#end += piece.length;
      return;
    }
    this.#close();
    this.#buffer = piece.buffer;
    this.#start = piece.byteOffset;
    this.#end = piece.byteOffset + piece.length;
  }

  /** The joined bytes. */
  bytes(): Buffer {
    this.#close();
    const views = this.#views;
    if (views.length === 1) {
      const only = views[0] as Uint8Array;
      return Buffer.from(only.buffer, only.byteOffset, only.length);
    }
    return Buffer.concat(views, this.#length);
  }

  #close(): void {
    if (this.#buffer === undefined) return;
    this.#views.push(new Uint8Array(this.#buffer, this.#start, this.#end - this.#start));
    this.#buffer = undefined;
  }
}
