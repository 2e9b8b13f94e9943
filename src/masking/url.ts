// What the library shows of a URL: its user-info and the values of
// credential-like query parameters are masked in every message, log line,
// toString(), console.log() and JSON.stringify() view.

/** The mask written in place of a secret. */
export const MASK = "***";

/**
 * Query parameter names whose values are masked wherever a URL is shown,
 * compared without regard to case (after percent-decoding). They are the
 * names real APIs put credentials in: OAuth and bearer tokens
 * (`access_token`, `refresh_token`, `id_token`, `token`, `auth_token`,
 * `api_token`, OAuth 1's `oauth_token` and `oauth_signature`), API keys
 * (`api_key`, `apikey`, `api-key`, and `key`, Google's name for one),
 * secrets and passwords (`client_secret`, `client_assertion`, `secret`,
 * `password`, `passwd`, `pwd`), signed URLs (`signature`, `sig` of Azure
 * SAS, `x-amz-signature`, `x-amz-security-token`, `x-goog-signature`),
 * `auth`, `authorization`, `jwt`, and sessions (`session`, `session_id`,
 * `sessionid`). Left out on purpose: `code`, which names error, country and
 * promotion codes far more often than the OAuth authorization code (that one
 * arrives at a redirect URI; a client sends it in a form body), and `state`
 * and `sid`, which are not credentials.
 */
export const SENSITIVE_QUERY_NAMES: ReadonlySet<string> = new Set([
  "access_token",
  "refresh_token",
  "id_token",
  "token",
  "auth_token",
  "api_token",
  "oauth_token",
  "oauth_signature",
  "api_key",
  "apikey",
  "api-key",
  "key",
  "client_secret",
  "client_assertion",
  "secret",
  "password",
  "passwd",
  "pwd",
  "signature",
  "sig",
  "x-amz-signature",
  "x-amz-security-token",
  "x-goog-signature",
  "auth",
  "authorization",
  "jwt",
  "session",
  "session_id",
  "sessionid",
]);

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * `url` with its user-info and credential-like query values masked.
 *
 * User-info is found as the WHATWG URL parser (the one `fetch` uses) reads
 * it, whatever the spelling (`HTTP://`, `http:/`, `http:\\`, surrounding
 * spaces, tabs or newlines): with a password the URL shows `user:***@`, a
 * user name alone (often a token itself) shows `***@`, and the URL is then
 * shown as the parser serializes it. A string with an `@` that does not
 * parse (a bad port, a relative `//user:pw@host`) is masked the same way
 * where its authority holds the `@`, and from after its scheme up to its
 * last `@` otherwise. The query and fragment keep their
 * spelling; only the values of {@linkcode SENSITIVE_QUERY_NAMES} and of the
 * lower-case names in `extra` become `***`. A URL with no `@`, `?` or `#` is
 * returned as it is, without a parse.
 */
export function redactUrl(url: string, extra: ReadonlySet<string> = NO_NAMES): string {
  const shown = url.includes("@") ? maskUserInfo(url) : url;
  return redactQuery(shown, extra);
}

function maskUserInfo(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null) return maskUnparsedUserInfo(url);
  if (parsed.username === "" && parsed.password === "") return url;
  if (parsed.password === "") parsed.username = MASK;
  else parsed.password = MASK;
  return parsed.href;
}

/** An absolute URL's scheme and slashes, or a scheme-relative URL's two slashes. */
const AUTHORITY_START = /^(?:[a-z][a-z0-9+.-]*:[/\\]*|[/\\]{2})/i;

/**
 * Masks what may be user-info in a string the parser refused. Where its
 * authority (up to the first `/`, `\\`, `?` or `#`) holds an `@`, the parser
 * would have read user-info there: shown as a parsed one is. Where only a
 * later `@` is found (a password holding a `/`), everything up to the last
 * `@` is masked: when unsure, mask more.
 */
function maskUnparsedUserInfo(url: string): string {
  // As the parser does: leading and trailing C0 controls and spaces go, tabs and newlines
  // anywhere. Trimmed by a loop: a regex for the end is retried at every position of a run.
  let first = 0;
  let last = url.length;
  while (first < last && url.charCodeAt(first) <= 0x20) first++;
  while (last > first && url.charCodeAt(last - 1) <= 0x20) last--;
  const cleaned = url.slice(first, last).replace(/[\t\n\r]/g, "");
  const start = AUTHORITY_START.exec(cleaned)?.[0].length;
  if (start === undefined) return url;
  const rest = cleaned.slice(start);
  const end = rest.search(/[/\\?#]/);
  const at = (end === -1 ? rest : rest.slice(0, end)).lastIndexOf("@");
  if (at === -1) {
    const last = rest.lastIndexOf("@");
    return last === -1 ? url : `${cleaned.slice(0, start)}${MASK}${rest.slice(last)}`;
  }
  const colon = rest.slice(0, at).indexOf(":");
  const shown = colon === -1 ? MASK : `${rest.slice(0, colon)}:${MASK}`;
  return `${cleaned.slice(0, start)}${shown}${rest.slice(at)}`;
}

/**
 * `text` with the values of credential-like parameters masked after its
 * first `?` or `#` (a URL, or a path and query), the rest as it is.
 */
export function redactQuery(text: string, extra: ReadonlySet<string> = NO_NAMES): string {
  const query = text.search(/[?#]/);
  if (query === -1) return text;
  let shown = text.slice(0, query);
  let at = query;
  // A pair starts after `?`, `&`, `;` or `#`; a masked value runs to the next `&` or `#` (a
  // `;` in it is masked too), while an unmasked value is searched for a `;name=`.
  while (at < text.length) {
    const nameStart = at + 1;
    const nameEnd = indexOfAny(text, "=&;?#", nameStart);
    if (text[nameEnd] === "=" && isSensitive(text.slice(nameStart, nameEnd), extra)) {
      const valueEnd = indexOfAny(text, "&#", nameEnd);
      shown += `${text.slice(at, nameEnd + 1)}${MASK}`;
      at = valueEnd;
      continue;
    }
    const next = indexOfAny(text, "&;?#", text[nameEnd] === "=" ? nameEnd + 1 : nameEnd);
    shown += text.slice(at, next);
    at = next;
  }
  return shown;
}

function indexOfAny(text: string, chars: string, from: number): number {
  for (let i = from; i < text.length; i++) if (chars.includes(text[i]!)) return i;
  return text.length;
}

/**
 * True when a query parameter's name is one of
 * {@linkcode SENSITIVE_QUERY_NAMES}, compared without regard to case, after
 * percent-decoding and without an array suffix (`token[]`, `api_key[0]`).
 */
export function isSensitiveQueryName(name: string): boolean {
  return isSensitive(name, NO_NAMES);
}

function isSensitive(rawName: string, extra: ReadonlySet<string>): boolean {
  // A server reads `%61pi_key` or `api+key` decoded, as URLSearchParams does.
  let name = /[%+]/.test(rawName)
    ? new URLSearchParams(`${rawName}=`).keys().next().value ?? rawName
    : rawName;
  // PHP and Rails read `token[]=…` and `token[0]=…` as the parameter `token`.
  if (name.endsWith("]")) {
    const bracket = name.indexOf("[");
    if (bracket > 0) name = name.slice(0, bracket);
  }
  const lower = name.toLowerCase();
  return SENSITIVE_QUERY_NAMES.has(lower) || extra.has(lower);
}

/** Punctuation that closes a sentence or a parenthesis: kept outside a URL or a value in text. */
const CLOSING = "),.;:'\"]>";

/**
 * `text` (an error message, a log line) with the user-info and the
 * credential-like query values of every URL in it masked, and credential-like
 * pairs of a path's query too. A URL in text is a scheme, a colon, a slash
 * and no white space, without the closing punctuation at its end. Scanned
 * by hand, in linear time: the regular expressions for these shapes are
 * retried at every position of a long run and take quadratic time.
 */
export function redactText(text: string, extra: ReadonlySet<string> = NO_NAMES): string {
  if (!/[@?#]/.test(text)) return text;
  return maskPairs(text.replace(/\S+/g, (word) => maskUrlIn(word, extra)), extra);
}

/** Schemes the URL parser reads an authority after with no slash at all (`http:user:pw@host`). */
const SPECIAL_SCHEMES: ReadonlySet<string> = new Set(["http", "https", "ws", "wss", "ftp"]);

/**
 * `word` (no white space) with the URL in it, if any, masked: a scheme, a
 * colon and a slash; a special scheme and a colon with an `@` after it; or
 * two slashes with an `@` after them (a scheme-relative URL).
 */
function maskUrlIn(word: string, extra: ReadonlySet<string>): string {
  const lastAt = word.lastIndexOf("@");
  const masked = (start: number, from: number) => {
    const end = withoutClosing(word, from, word.length);
    return word.slice(0, start) + redactUrl(word.slice(start, end), extra) + word.slice(end);
  };
  for (let colon = word.indexOf(":"); colon !== -1; colon = word.indexOf(":", colon + 1)) {
    const slashed = isSlash(word[colon + 1]);
    if (!slashed && lastAt < colon) continue;
    // The scheme: the run of scheme characters before the colon, from its first letter.
    let start = colon;
    while (start > 0 && /[a-z0-9+.-]/i.test(word[start - 1]!)) start--;
    while (start < colon && !/[a-z]/i.test(word[start]!)) start++;
    if (start === colon) continue;
    if (slashed) return masked(start, colon + 2);
    if (SPECIAL_SCHEMES.has(word.slice(start, colon).toLowerCase())) {
      return masked(start, colon + 1);
    }
  }
  for (let i = 0; i + 2 < lastAt; i++) {
    if (
      isSlash(word[i]) && isSlash(word[i + 1]) && (i === 0 || !/[\w+.:/\\-]/.test(word[i - 1]!))
    ) {
      return masked(i, i + 2);
    }
  }
  return word;
}

function isSlash(char: string | undefined): boolean {
  return char === "/" || char === "\\";
}

/** Where the closing punctuation at the end of `text[from, to)` starts. */
function withoutClosing(text: string, from: number, to: number): number {
  while (to > from && CLOSING.includes(text[to - 1]!)) to--;
  return to;
}

/**
 * `text` with the values of credential-like `name=value` pairs masked: a
 * pair follows `?`, `&`, `;` or `#`, and its value runs to white space or
 * `&`, without the closing punctuation at its end.
 */
function maskPairs(text: string, extra: ReadonlySet<string>): string {
  let shown = "";
  let copied = 0;
  for (let at = indexOfAny(text, "?&;#", 0); at < text.length;) {
    const nameEnd = indexOfAnyOrBlank(text, "=?&;#", at + 1);
    if (nameEnd === at + 1 || text[nameEnd] !== "=") {
      at = indexOfAny(text, "?&;#", at + 1);
      continue;
    }
    const valueEnd = withoutClosing(text, nameEnd + 1, indexOfAnyOrBlank(text, "&", nameEnd + 1));
    if (isSensitive(text.slice(at + 1, nameEnd), extra)) {
      shown += `${text.slice(copied, nameEnd + 1)}${MASK}`;
      copied = valueEnd;
    }
    at = indexOfAny(text, "?&;#", valueEnd);
  }
  return copied === 0 ? text : shown + text.slice(copied);
}

/** The first index from `from` of one of `chars` or of white space, or the length. */
function indexOfAnyOrBlank(text: string, chars: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const char = text[i]!;
    if (chars.includes(char) || /\s/.test(char)) return i;
  }
  return text.length;
}
