// The one array a buffered response body is collected into, under its
// limit (read_body.ts fills it for every transport). The rule: never hold much more than the body itself. A body of
// known length is read into one array of that length; a body of unknown
// length grows one resizable ArrayBuffer in place (the engine reserves
// address space up to `maxByteLength` and commits pages only as they are
// written), so there is no moment holding the chunks and their join, nor an
// old and a new array while growing. The result is that memory, moved to a
// fixed-length buffer where the runtime can: no copy at the end either.

/** Thrown when a body exceeds its limit; reading stops at once. */
export class BodyTooLarge extends Error {
  /** Names the limit. */
  constructor(readonly maxBytes: number) {
    super(`Response body exceeds ${maxBytes} bytes`);
    this.name = "BodyTooLarge";
  }
}

/**
 * The largest `maxByteLength` every supported runtime accepts (Node 20 and
 * 22: 4 GiB). A body past it fails as too large even when the limit is higher.
 */
const MAX_RESERVE = 2 ** 32;

/** The first size a growing buffer takes: most bodies of two chunks or more fit. */
const FIRST_GROWTH = 64 * 1024;

/** The ES2024 resizable `ArrayBuffer`, typed here for builds whose lib predates it. */
interface ResizableBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}

/**
 * The memory of `buffer` as a fixed-length buffer: a spec-conforming Web API
 * (a browser's TextDecoder, Blob, crypto) refuses a view of a resizable one.
 * V8 moves the memory without a copy; Node 20 has no `transferToFixedLength`
 * and its APIs take a resizable buffer, which is kept there.
 */
function fixedLength(buffer: ResizableBuffer): ArrayBuffer {
  const { transferToFixedLength } = buffer as { transferToFixedLength?: () => ArrayBuffer };
  return typeof transferToFixedLength === "function" ? transferToFixedLength.call(buffer) : buffer;
}
const Resizable = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableBuffer;

/**
 * A body being collected. `append()` throws {@linkcode BodyTooLarge} as soon
 * as the limit is passed; `bytes()` gives the body as a plain `Uint8Array`.
 */
export class BodyBuffer {
  /** Bytes appended so far. */
  size = 0;
  readonly #maxBytes: number;
  /** A lone first chunk, kept without copying until a second one comes. */
  #first: Uint8Array | undefined;
  #bytes: Uint8Array | undefined;
  #growable: ResizableBuffer | undefined;

  /**
   * @param maxBytes The limit, in bytes (`Infinity`: none).
   * @param length The body's length when known (an unencoded body's
   * Content-Length, already checked against the limit).
   */
  constructor(maxBytes: number, length?: number) {
    this.#maxBytes = maxBytes;
    if (length !== undefined && length > 0) this.#bytes = new Uint8Array(length);
  }

  /**
   * Adds `chunk`; past the limit, throws {@linkcode BodyTooLarge} and holds
   * nothing more. A `reused` chunk's memory is written again later: it is
   * copied at once.
   */
  append(chunk: Uint8Array, reused = false): void {
    const size = this.size + chunk.byteLength;
    if (size > this.#maxBytes) throw new BodyTooLarge(this.#maxBytes);
    if (this.#bytes === undefined && this.#first === undefined) {
      this.#first = reused ? chunk.slice() : chunk;
      this.size = size;
      return;
    }
    if (this.#bytes === undefined || size > this.#bytes.byteLength) this.#grow(size);
    (this.#bytes as Uint8Array).set(chunk, this.size);
    this.size = size;
  }

  /**
   * The unwritten part of a body of known length, for a reader to fill in
   * place (a BYOB read, then {@linkcode BodyBuffer.filled}); `undefined`
   * when the length is unknown or the array is full.
   */
  room(): Uint8Array<ArrayBuffer> | undefined {
    const bytes = this.#bytes;
    if (bytes === undefined || this.#growable !== undefined) return undefined;
    // Without a growable buffer, the array is a plain one of the known length.
    const plain = bytes as Uint8Array<ArrayBuffer>;
    return this.size < plain.byteLength ? plain.subarray(this.size) : undefined;
  }

  /**
   * Takes back the memory of {@linkcode BodyBuffer.room}, which a BYOB read
   * took over and gave back as `filled` (a view of its first bytes).
   */
  filled(filled: Uint8Array): void {
    this.#bytes = new Uint8Array(filled.buffer);
    this.size += filled.byteLength;
  }

  /** The body: a plain `Uint8Array` the caller owns. */
  bytes(): Uint8Array {
    const first = this.#first;
    if (this.#bytes === undefined) {
      if (first === undefined) return new Uint8Array(0);
      // A chunk that is a whole array of its own is returned as it is;
      // a view into a runtime's read buffer (Node's `Buffer`) is copied out.
      return first.constructor === Uint8Array && first.byteOffset === 0 &&
          first.byteLength === first.buffer.byteLength
        ? first
        : new Uint8Array(first);
    }
    const growable = this.#growable;
    if (growable !== undefined) {
      // Gives back the pages reserved past the end of the body.
      growable.resize(this.size);
      this.#growable = undefined;
      this.#bytes = new Uint8Array(fixedLength(growable));
      return this.#bytes;
    }
    return this.size === this.#bytes.byteLength ? this.#bytes : this.#bytes.subarray(0, this.size);
  }

  /** Makes room for `size` bytes: doubling in place, so a body of n bytes takes about log2(n) resizes. */
  #grow(size: number): void {
    let growable = this.#growable;
    if (growable === undefined || size > growable.maxByteLength) {
      const reserve = Math.min(this.#maxBytes, MAX_RESERVE);
      if (size > reserve) throw new BodyTooLarge(reserve);
      growable = new Resizable(0, { maxByteLength: reserve });
      this.#growable = growable;
    }
    const held = this.#bytes ?? this.#first as Uint8Array;
    const wanted = Math.max(size, FIRST_GROWTH, 2 * growable.byteLength);
    growable.resize(Math.min(wanted, growable.maxByteLength));
    const bytes = new Uint8Array(growable);
    if (held.buffer !== growable) bytes.set(held.subarray(0, this.size));
    this.#bytes = bytes;
    this.#first = undefined;
  }
}
