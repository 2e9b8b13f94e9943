// What a transport, an upload or a body read fails with, before the send
// path (src/send/exchange.ts) maps it to the library's exceptions: one
// Failure with a kind for what they tell apart, the runtime's own error for
// a failed connection (its cause named here), and a call the runtime can
// never make. This file imports nothing, so every build (the browser's too)
// carries these without the code that makes them (proxy.ts, the runtimes).

/**
 * What a failure is, for the one mapping (send/exchange.ts) to the
 * library's exceptions:
 * - `decode`: the body's bytes cannot be decoded for its Content-Encoding
 *   (`detail`: the coding); a body cut short by the connection is not one.
 * - `malformed`: the runtime refused to parse the response (`detail`: why).
 * - `proxy`: the proxy, not the target, failed (unreachable, refusing the
 *   tunnel or the credentials): a retry may succeed.
 * - `route`: a proxy route the runtime cannot take: a retry would be the same.
 * - `source`: the request body's own source failed (the caller's stream, a
 *   file read), though the transport reports it as its own.
 * - `progress`: a progress callback threw.
 * - `too-large`: the response body passed `maxResponseBytes` (`detail`: the limit).
 * - `blocked`: the network policy refused the destination ({@linkcode BlockedFailure}):
 *   never retried, the same address would be refused again.
 *
 * Neither `decode` nor `malformed` is transient: the same bytes would come again.
 */
export type FailureKind =
  | "decode"
  | "malformed"
  | "proxy"
  | "route"
  | "source"
  | "progress"
  | "too-large"
  | "blocked";

/**
 * The one error a transport, an upload or a body read throws for what it
 * tells apart ({@linkcode FailureKind}); `cause` is the runtime's error, the
 * source's, or the callback's. Anything else a transport throws is the
 * runtime's own error, a connection's failure ({@linkcode connectionCause}).
 */
export class Failure extends Error {
  /** @param detail What the message names (a coding, a reason, a limit). */
  constructor(
    readonly kind: FailureKind,
    message: string,
    cause?: unknown,
    readonly detail = "",
  ) {
    super(message, { cause });
    this.name = "Failure";
  }
}

/**
 * The network policy refused a destination: the URL's `host` is, or
 * resolved to, `address`, which `rule` refuses (in `range`). Thrown before
 * any byte is sent to the address.
 */
export class BlockedFailure extends Failure {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly rule: string,
    readonly range: string,
  ) {
    super(
      "blocked",
      `Destination refused by the network policy: ${host}${
        host === address ? "" : ` is ${address}`
      } (${rule}, ${range})`,
    );
  }
}

/** The {@linkcode BlockedFailure} `error` is, or has down its cause chain (a few levels), or `undefined`. */
export function blockedIn(error: unknown): BlockedFailure | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; depth++, e = e.cause) {
    if (e instanceof BlockedFailure) return e;
  }
  return undefined;
}

/** True when `error` is a {@linkcode Failure} of `kind`. */
export function isFailure(error: unknown, kind: FailureKind): error is Failure {
  return error instanceof Failure && error.kind === kind;
}

/** The failure of a body whose bytes cannot be decoded for `coding`. */
export function decodeFailure(coding: string, cause: unknown): Failure {
  return new Failure("decode", `Response body could not be decoded (${coding})`, cause, coding);
}

/**
 * The error for a response head past the runtime's parser's limits: a
 * fetch fails it with "fetch failed", the reason only in `cause` (Deno's at
 * about 100 header lines, Node's past 16 KiB); undici's `dispatch()` (the
 * npm build) with its own error.
 */
export function headOverflow(error: unknown): Failure | undefined {
  const malformed = (reason: string) =>
    new Failure("malformed", `Malformed response (${reason})`, error, reason);
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof Error && cause.message.includes("message head is too large")) {
    return malformed("too many response headers");
  }
  // undici's own error (the npm build's transport), or as the cause of Node's fetch's.
  const overflow = [error, cause].some((e) =>
    (e as { code?: unknown } | null)?.code === "UND_ERR_HEADERS_OVERFLOW"
  );
  return overflow ? malformed("response headers too large") : undefined;
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

// The root cause of a failed connection, read from a runtime's error: Deno's
// fetch fails every one with "fetch failed" and the reason in its `cause`'s
// message; Node and undici give a `code`; a browser's says only that it
// failed, CORS included. The send path names the cause in the exception's
// message and keeps the runtime's error as its `cause`.

/** A connection failure's cause: what it was, and the runtime's own words. */
export interface ConnectionCause {
  /** What went wrong, in a few words ("connection refused"); `undefined` when unknown. */
  readonly label: string | undefined;
  /** The runtime's deepest message, on one line, without the request's URL. */
  readonly detail: string;
}

/** Node's and undici's error codes, by the cause they name. */
const CODES: readonly (readonly [RegExp, string])[] = [
  [/^ECONNREFUSED$/, "connection refused"],
  [/^(ECONNRESET|EPIPE)$/, "connection reset"],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_NODATA)$/, "host not found"],
  [/^CERT_HAS_EXPIRED$/, "TLS certificate expired"],
  [/^CERT_NOT_YET_VALID$/, "TLS certificate not yet valid"],
  [/^ERR_TLS_CERT_ALTNAME_INVALID$/, "TLS certificate name mismatch"],
  [
    /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_UNTRUSTED|CERT_SIGNATURE_FAILURE)$/,
    "TLS certificate not trusted",
  ],
  [/CERTIFICATE_REQUIRED$/, "TLS client certificate required"],
  [/^(ERR_SSL_|ERR_TLS_|CERT_|EPROTO$)/, "TLS handshake failed"],
  [/^(UND_ERR_SOCKET|UND_ERR_CLOSED|ECONNABORTED)$/, "connection closed early"],
  [/^HPE_/, "malformed response"],
];

/** Deno's messages (rustls, hyper), by the cause they name. */
const MESSAGES: readonly (readonly [RegExp, string])[] = [
  [/connection refused/i, "connection refused"],
  [/connection reset/i, "connection reset"],
  [/dns error|failed to lookup address|name or service not known/i, "host not found"],
  [/certificate expired/i, "TLS certificate expired"],
  [/certificate not valid yet/i, "TLS certificate not yet valid"],
  [/not valid for name|NotValidForName/, "TLS certificate name mismatch"],
  [/UnknownIssuer|UnknownCA|BadSignature/, "TLS certificate not trusted"],
  [/CertificateRequired/, "TLS client certificate required"],
  [/invalid peer certificate|received fatal alert|tls handshake/i, "TLS handshake failed"],
  [
    /connection closed before message completed|error reading a body from connection|end of file before message length reached|other side closed/i,
    "connection closed early",
  ],
  [/invalid HTTP|does not match the HTTP|HTTPParserError/i, "malformed response"],
];

/**
 * A browser's fetch failure (Chromium's, Firefox's, Safari's words): the
 * same for a refused port, an unreachable host and a response or preflight
 * its CORS check refused, and the page is never told which.
 */
const BROWSER_FAILURE =
  /^(Failed to fetch|NetworkError when attempting to fetch resource\.?|Load failed)$/;

/** Deno's words before the cause ("error sending request for url (…): client error (Connect): "). */
const PREFIX = /^.*?client error \([A-Za-z]+\): /s;

/**
 * The cause of a connection failure, from `error` and its `cause` chain (a
 * few levels: Deno's fetch wraps the reason once, Node's twice).
 */
export function connectionCause(error: unknown): ConnectionCause {
  const chain: Error[] = [];
  for (let e = error, depth = 0; e instanceof Error && depth < 4; depth++) {
    chain.push(e);
    e = e.cause;
  }
  const deepest = chain.at(-1);
  const detail = deepest === undefined ? String(error) : describe(deepest);
  // The deepest error is the most specific: it is asked first.
  for (const e of chain.reverse()) {
    const label = labelOf(e);
    if (label !== undefined) return { label, detail: describe(e) };
  }
  return { label: undefined, detail };
}

function labelOf(error: Error): string | undefined {
  const { code } = error as { code?: unknown };
  if (typeof code === "string") {
    for (const [pattern, label] of CODES) if (pattern.test(code)) return label;
  }
  if (error.name === "HTTPParserError") return "malformed response";
  for (const [pattern, label] of MESSAGES) if (pattern.test(error.message)) return label;
  if (BROWSER_FAILURE.test(error.message)) return "refused, unreachable or blocked by CORS";
  return undefined;
}

/** The message on one line, without Deno's prefix (which holds the URL), with a code it lacks. */
function describe(error: Error): string {
  const message = error.message.replace(PREFIX, "").replace(/\s+/g, " ").trim();
  const { code } = error as { code?: unknown };
  const text = typeof code === "string" && !message.includes(code)
    ? `${code}: ${message}`
    : message;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
