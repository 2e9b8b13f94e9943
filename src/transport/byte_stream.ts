// Feeding a byte stream (`type: "bytes"`) from a source that pushes chunks
// it owns: the stream takes over the memory of what it is given.

/**
 * Puts `chunk` in the byte stream of `stream`: into the array a reader waits
 * to fill when there is one (no copy), else a copy onto the queue (the
 * stream takes over its chunks' memory, and the source's is its own).
 *
 * @returns True when the stream is full: the source should wait.
 */
export function enqueueBytes(stream: ReadableByteStreamController, chunk: Uint8Array): boolean {
  const request = stream.byobRequest;
  const view = request?.view as Uint8Array | undefined;
  if (request === null || view === undefined) stream.enqueue(new Uint8Array(chunk));
  else if (view.byteLength >= chunk.byteLength) {
    view.set(chunk);
    request.respond(chunk.byteLength);
  } else {
    view.set(chunk.subarray(0, view.byteLength));
    request.respond(view.byteLength);
    stream.enqueue(new Uint8Array(chunk.subarray(view.byteLength)));
  }
  return (stream.desiredSize ?? 0) <= 0;
}

/**
 * A chunk as a plain `Uint8Array` over the same memory (Node's undici and
 * zlib give Buffers), as a body's chunks are on every runtime.
 */
export function plain(chunk: Uint8Array): Uint8Array {
  return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * The most bytes an upload reads from a byte stream at a time. Every chunk
 * sent is a fresh buffer the transport may keep until it is on the wire
 * (Deno's fetch holds it without copying), so buffers cannot be reused, and
 * the chunks sent are garbage V8 collects only after a few hundred of them:
 * smaller chunks keep that garbage small (64 KiB ones left tens of MiB of
 * it behind) at little cost to throughput.
 */
export const UPLOAD_CHUNK = 32 * 1024;

/** Reads the next chunk of a stream. */
export type ChunkRead = () => Promise<ReadableStreamReadResult<Uint8Array>>;

/**
 * Reads `stream` in chunks of at most {@linkcode UPLOAD_CHUNK} bytes, each
 * in a fresh buffer, where it is a byte stream (a file's is); another
 * stream's chunks are taken as they come. `cancel` gives the stream up.
 */
export function uploadReader(
  stream: ReadableStream<Uint8Array>,
): { read: ChunkRead; cancel: (reason?: unknown) => Promise<void> } {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: read with a default reader below.
  }
  if (byob === undefined) {
    const reader = stream.getReader();
    return { read: () => reader.read(), cancel: (reason) => reader.cancel(reason) };
  }
  const reader = byob;
  return {
    read: () =>
      reader.read(new Uint8Array(UPLOAD_CHUNK)) as Promise<ReadableStreamReadResult<Uint8Array>>,
    cancel: (reason) => reader.cancel(reason),
  };
}
