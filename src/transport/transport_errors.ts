// The failures a transport tells apart before the send path maps them to the
// library's exceptions: a body its decoder rejects, and a response the
// runtime refused to parse. Neither is transient: sending again would get
// the same bytes.

/**
 * The error a `WireResponse.body` stream fails with when the body's bytes
 * cannot be decoded for its Content-Encoding; `cause` is the runtime's
 * error. A body cut short by the connection is not one: the transport's own
 * error stays.
 */
export class BodyDecodeError extends Error {
  /** Names the coding. */
  constructor(readonly coding: string, cause: unknown) {
    super(`Response body could not be decoded (${coding})`, { cause });
    this.name = "BodyDecodeError";
  }
}

/**
 * Thrown by a {@linkcode Transport} for a response the runtime refused to
 * parse, naming why (`reason`); `cause` is the runtime's error. Sending the
 * request again would get the same response.
 */
export class MalformedResponse extends Error {
  /** Names the reason. */
  constructor(readonly reason: string, cause: unknown) {
    super(`Malformed response (${reason})`, { cause });
    this.name = "MalformedResponse";
  }
}

/**
 * The error for a response head past the runtime's parser's limits: a
 * fetch fails it with "fetch failed", the reason only in `cause` (Deno's at
 * about 100 header lines, Node's past 16 KiB); undici's `dispatch()` (the
 * npm build) with its own error.
 */
export function headOverflow(error: unknown): MalformedResponse | undefined {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof Error && cause.message.includes("message head is too large")) {
    return new MalformedResponse("too many response headers", error);
  }
  // undici's own error (the npm build's transport), or as the cause of Node's fetch's.
  const overflow = [error, cause].some((e) =>
    (e as { code?: unknown } | null)?.code === "UND_ERR_HEADERS_OVERFLOW"
  );
  return overflow ? new MalformedResponse("response headers too large", error) : undefined;
}

/**
 * The messages of Deno's fetch for a gzip or br body its decoder rejects
 * ("deflate decompression error: …", "brotli error", "unexpected end of
 * file"…), and of `DecompressionStream`, as distinct from a body cut by the
 * connection ("error reading a body from connection"). Node's zlib errors
 * carry a `Z_…` or brotli `code`, also as the `cause` of Node's fetch error.
 */
const DECODER_MESSAGE = /decompression|brotli|gzip|deflate|unexpected end of file|unexpected EOF/i;

/**
 * Firefox's fetch fails a body read with this TypeError, and nothing more,
 * when its decoder rejects the bytes of any coding; a body cut by the
 * connection fails with other words.
 */
const FIREFOX_DECODER_MESSAGE = /^Decoding failed\.?$/;

/**
 * True for Firefox's own failure of a body read by its decoder. Where a page
 * cannot see the body's Content-Encoding (a server that does not expose it
 * to CORS), the client reads the body as the browser hands it, unwrapped,
 * and this message is all that tells the decoder's failure from the
 * connection's.
 */
export function isBrowserDecoderFailure(error: unknown): boolean {
  return error instanceof TypeError && FIREFOX_DECODER_MESSAGE.test(error.message);
}

/** True when `error` (or its cause) is a decoder's rejection of the body's bytes, not the connection's failure. */
export function isDecoderError(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 3; depth++) {
    const { code } = e as { code?: unknown };
    if (typeof code === "string" && /^(Z_|ERR_BROTLI|ERR__ERROR)/.test(code)) return true;
    if (depth === 0 && e instanceof TypeError && DECODER_MESSAGE.test(e.message)) return true;
    if (depth === 0 && isBrowserDecoderFailure(e)) return true;
    e = e.cause;
  }
  return false;
}
