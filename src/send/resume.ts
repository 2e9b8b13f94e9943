// Resumed bodies (API.md "Adaptive controls", `withRetry({ resume })`): a
// GET whose body breaks off after its head, when the response named a
// strong validator and `Accept-Ranges: bytes`, is continued with `Range:
// bytes=N-` and `If-Range` under the same body stream, so the reader, the
// progress callbacks, the middleware (a HAR, a cache) see one unbroken
// body. A 200 in answer (the resource changed) or a Content-Range that does
// not start at N fails the read: never a body spliced from two versions.
// Below the middleware: the resumed exchange goes straight to the
// transport, within the exchange's step (its timeouts, signal, close()).

import { HttpClientException } from "../errors.ts";
import { headerValuesOf, parseHttpDate } from "../http/headers.ts";
import type { Step } from "./deadline.ts";
import type { Transport, WireRequest, WireResponse } from "../transport/types.ts";

/** A Last-Modified this much older than the response's Date is a strong validator (RFC 9110). */
const STRONG_AGE_MS = 60_000;

/** The header of `response` named `lower`, or undefined. */
function header(response: WireResponse, lower: string): string | undefined {
  return headerValuesOf(response.headers, lower)[0];
}

/**
 * The validator an `If-Range` may carry for `response`: its ETag unless
 * weak, else its Last-Modified when at least 60 s older than its Date;
 * undefined when it has neither (it cannot be resumed).
 */
function strongValidator(response: WireResponse): string | undefined {
  const etag = header(response, "etag")?.trim();
  if (etag !== undefined && etag !== "" && !etag.startsWith("W/")) return etag;
  const modified = header(response, "last-modified");
  if (modified === undefined) return undefined;
  const at = parseHttpDate(modified);
  const date = header(response, "date");
  const now = (date === undefined ? undefined : parseHttpDate(date)) ?? Date.now();
  return at !== undefined && now - at >= STRONG_AGE_MS ? modified : undefined;
}

/**
 * `response` with a body that resumes where it broke off, each time
 * `retry()` allows (it takes one of the call's retries), when `wire` is a GET, the response a 200 with a strong
 * validator, `Accept-Ranges: bytes` and no Content-Encoding (the decoded
 * bytes then are the representation's, which a range counts); else
 * `response` as it is.
 */
export function resumable(
  response: WireResponse,
  wire: WireRequest,
  step: Step,
  transport: Transport,
  retry: (() => boolean) | undefined,
): WireResponse {
  if (retry === undefined || wire.method !== "GET" || response.status !== 200) return response;
  if (response.body === null || wire.headers["range"] !== undefined) return response;
  const ranges = header(response, "accept-ranges")?.toLowerCase();
  if (ranges === undefined || !ranges.split(",").some((unit) => unit.trim() === "bytes")) {
    return response;
  }
  const coding = header(response, "content-encoding")?.trim().toLowerCase();
  if (coding !== undefined && coding !== "" && coding !== "identity") return response;
  const validator = strongValidator(response);
  if (validator === undefined) return response;
  const lengthText = header(response, "content-length");
  const length = lengthText === undefined ? undefined : Number(lengthText);
  let received = 0;
  let reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (error) {
          // The step's end (its timeout, signal, close()) is no break: it ends the body.
          if (step.aborted || !retry()) throw error;
          reader = await resume(error);
          continue;
        }
        if (read.done) {
          if (length !== undefined && received < length && retry()) {
            // Ended early without an error (a runtime that reports a cut body as its end).
            reader = await resume(new Error("the body ended early"));
            continue;
          }
          controller.close();
          return;
        }
        received += read.value.byteLength;
        controller.enqueue(read.value);
        return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });

  /** The rest of the body, from byte `received`, or an error naming why it cannot be had. */
  async function resume(cause: unknown): Promise<ReadableStreamDefaultReader<Uint8Array>> {
    const headers = { ...wire.headers, range: `bytes=${received}-`, "if-range": validator! };
    const next = await transport({ ...wire, headers }, step);
    const refused = (why: string) => {
      void next.body?.cancel("resume refused").catch(() => {});
      return new HttpClientException(
        `The body broke off at byte ${received} and could not be resumed: ${why}`,
        { cause },
      );
    };
    if (next.status === 200) throw refused("the server sent the whole resource again (it changed)");
    if (next.status !== 206) throw refused(`the server answered ${next.status} to the range`);
    const range = header(next, "content-range") ?? "";
    const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(range.trim());
    if (match === null || Number(match[1]) !== received) {
      throw refused(`its Content-Range ${JSON.stringify(range)} does not start at ${received}`);
    }
    if (length !== undefined && match[3] !== "*" && Number(match[3]) !== length) {
      throw refused(`its Content-Range ${JSON.stringify(range)} is not of ${length} bytes`);
    }
    if (next.body === null) throw refused("the range came without a body");
    return next.body.getReader();
  }

  // No native read of the whole body: it would not resume. The phases are the first exchange's.
  const { status, headers, location, timings } = response;
  return { status, headers, location, body, timings };
}
