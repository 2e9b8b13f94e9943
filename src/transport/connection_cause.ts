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
