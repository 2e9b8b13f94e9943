// A fetch sent without a signal: when nothing but the client's close can
// end a step (no timeout, no caller's signal), the fetch transport gives
// `fetch` no `AbortSignal` (on Deno, each one costs a dependent signal with
// WeakRefs and a FinalizationRegistry entry per request) and watches the
// step here instead. A close then fails the exchange at once: a head that
// arrives later has its body cancelled; a body read as a stream is cancelled
// at once; `Response.bytes()` cannot be stopped, so a body read that way
// runs on to its end in the background, unread.

import type { Abort } from "../client/deadline/abort.ts";

/** What an exchange ended by the close fails with (the client names the close). */
function closedError(): DOMException {
  return new DOMException("The client was closed", "AbortError");
}

/**
 * `pending` until `abort`, which rejects at once; `onLate` gets what
 * `pending` resolves to after that.
 */
function whileOpen<T>(pending: Promise<T>, abort: Abort, onLate?: (late: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(closedError());
    abort.onAbort(onAbort);
    pending.then((value) => {
      abort.offAbort(onAbort);
      if (abort.aborted) onLate?.(value);
      else resolve(value);
    }, (error) => {
      abort.offAbort(onAbort);
      reject(error);
    });
  });
}

/** Waits for the head of a fetch until `abort`; a head that arrives later has its body cancelled. */
export function headWhileOpen(pending: Promise<Response>, abort: Abort): Promise<Response> {
  return whileOpen(pending, abort, cancelBody);
}

function cancelBody(late: Response): void {
  late.body?.cancel().catch(() => {});
}

/** Waits for a whole-body read until `abort`; its late result is dropped. */
export function readWhileOpen(pending: Promise<Uint8Array>, abort: Abort): Promise<Uint8Array> {
  return whileOpen(pending, abort);
}

/**
 * `body`, failed and cancelled at once when `abort` fires: a read waiting
 * for the next chunk rejects then, rather than when the chunk comes. The
 * body is not locked before the first read (a reader of the whole body,
 * `Response.bytes()`, may take it instead).
 */
export function bodyWhileOpen(
  body: ReadableStream<Uint8Array>,
  abort: Abort,
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let failNow: ((error: unknown) => void) | undefined;
  const onAbort = () => {
    failNow?.(closedError());
    // A body taken by another reader cannot be cancelled here: that read is watched itself.
    (reader ?? body).cancel().catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      failNow = (error) => controller.error(error);
      abort.onAbort(onAbort);
    },
    async pull(controller) {
      const { done, value } = await (reader ??= body.getReader()).read();
      if (abort.aborted) return;
      if (!done) return controller.enqueue(value);
      abort.offAbort(onAbort);
      controller.close();
    },
    cancel(reason) {
      abort.offAbort(onAbort);
      return (reader ?? body).cancel(reason);
    },
  }, { highWaterMark: 0 });
}
