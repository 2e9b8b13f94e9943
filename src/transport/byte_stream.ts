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
