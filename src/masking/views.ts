// What the library shows of a value, in one place: what a secret is (a
// URL's user-info, credential-like query values and headers, fields named
// like credentials) and how every message, log line, toString(),
// console.log() and JSON.stringify() view masks it, exceptions and their
// causes included.

import { type CredentialNames, isCredentialField, isCredentialHeader } from "./credentials.ts";

/** The mask written in place of a secret. */
export const MASK = "***";

const NO_NAMES: CredentialNames = new Set();

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
 * spelling; only the values of credential fields ({@linkcode isCredentialField}) and of the
 * lower-case names in `extra` become `***`. A URL with no `@`, `?` or `#` is
 * returned as it is, without a parse.
 */
export function redactUrl(url: string, extra: CredentialNames = NO_NAMES): string {
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
export function redactQuery(text: string, extra: CredentialNames = NO_NAMES): string {
  const query = text.search(/[?#]/);
  if (query === -1) return text;
  let shown = text.slice(0, query);
  let at = query;
  // A pair starts after `?`, `&`, `;` or `#`; a masked value runs to the next `&` or `#` (a
  // `;` in it is masked too), while an unmasked value is searched for a `;name=`.
  while (at < text.length) {
    const nameStart = at + 1;
    const nameEnd = indexOfAny(text, "=&;?#", nameStart);
    if (text[nameEnd] === "=" && isCredentialField(text.slice(nameStart, nameEnd), extra)) {
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

/** The first index from `from` of one of `chars` (or, with `blank`, of white space), or the length. */
function indexOfAny(text: string, chars: string, from: number, blank = false): number {
  for (let i = from; i < text.length; i++) {
    if (chars.includes(text[i]!) || blank && /\s/.test(text[i]!)) return i;
  }
  return text.length;
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
export function redactText(text: string, extra: CredentialNames = NO_NAMES): string {
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
function maskUrlIn(word: string, extra: CredentialNames): string {
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
function maskPairs(text: string, extra: CredentialNames): string {
  let shown = "";
  let copied = 0;
  for (let at = indexOfAny(text, "?&;#", 0); at < text.length;) {
    const nameEnd = indexOfAny(text, "=?&;#", at + 1, true);
    if (nameEnd === at + 1 || text[nameEnd] !== "=") {
      at = indexOfAny(text, "?&;#", at + 1);
      continue;
    }
    const valueEnd = withoutClosing(text, nameEnd + 1, indexOfAny(text, "&", nameEnd + 1, true));
    if (isCredentialField(text.slice(at + 1, nameEnd), extra)) {
      shown += `${text.slice(copied, nameEnd + 1)}${MASK}`;
      copied = valueEnd;
    }
    at = indexOfAny(text, "?&;#", valueEnd);
  }
  return copied === 0 ? text : shown + text.slice(copied);
}

/**
 * `<Type>: <message>` of what was thrown, the URLs in it masked (user-info,
 * credential-like query values, and the `sensitive` ones): for a log line.
 */
export function describeError(error: unknown, sensitive: CredentialNames = NO_NAMES): string {
  const described = error instanceof Error
    ? `${error.name}: ${error.message}`
    : `Error: ${String(error)}`;
  return redactText(described, sensitive);
}

/** An `Authorization` scheme and its credentials, as text may quote them. */
const SCHEME_CREDENTIALS = /\b(Bearer|Basic)\s+[\w\-.~+/]+=*/gi;

/** The names of the usual `Authorization` schemes, which are no secret. */
const AUTH_SCHEMES = /^(?:Bearer|Basic|Digest|Token|ApiKey|Negotiate|DPoP)$/i;

/** A value shorter than this is not looked for in text: it would mask common words. */
const SHORTEST_SECRET = 3;

/** What a call sent, as {@linkcode sentSecrets} reads it. */
export interface SentCredentials {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  readonly auth?: readonly [string, string] | undefined;
  readonly data?: Readonly<Record<string, unknown>> | undefined;
  readonly jsonData?: unknown;
}

/**
 * The credentials `sent` carried, to look for in what a server answers:
 * the values of its sensitive, credential-like and `declared` (lower-case)
 * headers, word by word but for an auth scheme's name (each cookie's value
 * too, and a Basic header's password),
 * the password of its Basic `auth`, the values of its URL's, params' and
 * form's credential-like fields, and the values under its JSON body's
 * credential-like keys.
 */
export function sentSecrets(
  sent: SentCredentials,
  declared: CredentialNames = NO_NAMES,
): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(sent.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!isCredentialHeader(lower, declared)) continue;
    // Word by word, but for an auth scheme's name: a message then reads `Bearer ***`.
    for (const word of value.split(/\s+/)) if (!AUTH_SCHEMES.test(word)) secrets.push(word);
    if (lower === "cookie") {
      for (const pair of value.split(";")) secrets.push(pair.slice(pair.indexOf("=") + 1).trim());
    }
    const basic = /^\s*Basic\s+(\S+)/i.exec(value)?.[1];
    if (basic !== undefined) {
      try {
        const pair = atob(basic);
        if (pair.includes(":")) secrets.push(pair.slice(pair.indexOf(":") + 1));
      } catch {
        // Not base64: its words are looked for as they are.
      }
    }
  }
  if (sent.auth !== undefined) secrets.push(sent.auth[1]);
  const query = URL.parse(sent.url)?.searchParams ?? [];
  const fields = [sent.params, sent.data].flatMap((record) =>
    Object.entries(record ?? {}).flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).map((item) => [name, String(item)] as const)
    )
  );
  for (const [name, value] of [...query, ...fields]) {
    if (isCredentialField(name, declared)) secrets.push(value);
  }
  jsonSecrets(sent.jsonData, false, secrets, 0);
  return secrets;
}

/** Pushes onto `secrets` the strings and numbers of `value` under a credential-like key (`hidden`). */
function jsonSecrets(value: unknown, hidden: boolean, secrets: string[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (hidden && (typeof value === "string" || typeof value === "number")) {
    secrets.push(String(value));
  } else if (Array.isArray(value)) {
    for (const item of value) jsonSecrets(item, hidden, secrets, depth + 1);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      jsonSecrets(item, hidden || isCredentialField(key), secrets, depth + 1);
    }
  }
}

/**
 * `text` (a server's words) with every credential in it masked: the URLs'
 * user-info and credential-like query values ({@linkcode redactText}),
 * `Bearer` and `Basic` credentials, and each of `secrets` (the values a call
 * sent: {@linkcode sentSecrets}) of at least three characters, wherever it
 * appears.
 */
export function maskSecretsIn(text: string, secrets: readonly string[]): string {
  return redactText(maskSentIn(text, secrets)).replace(SCHEME_CREDENTIALS, `$1 ${MASK}`);
}

/** `text` with each of `secrets` ({@linkcode sentSecrets}) of at least three characters masked, wherever it appears. */
export function maskSentIn(text: string, secrets: readonly string[]): string {
  let masked = text;
  // The longest first: a secret that holds another is masked whole.
  const longestFirst = [...new Set(secrets)].sort((a, b) => b.length - a.length);
  for (const secret of longestFirst) {
    if (secret.length >= SHORTEST_SECRET) masked = masked.replaceAll(secret, MASK);
  }
  return masked;
}

// The masked views of headers, fields, params, forms and objects.

/** A copy of `record`: the values of the names `hidden` holds for masked, the others `shown`. */
function maskRecord<T, U = T>(
  record: Readonly<Record<string, T>>,
  hidden: (name: string) => boolean,
  shown: (value: T) => U = (value) => value as unknown as U,
): Record<string, U | typeof MASK> {
  const masked: Record<string, U | typeof MASK> = {};
  for (const [name, value] of Object.entries(record)) {
    masked[name] = hidden(name) ? MASK : shown(value);
  }
  return masked;
}

/**
 * A copy of `headers` for a `console.log()` view: the values of credential
 * headers ({@linkcode isCredentialHeader}, with `names`) masked, each of
 * `secrets` (what the call sent, {@linkcode sentSecrets}) masked where
 * another header quotes it, and the URLs in the others (`Location`,
 * `Link`, `Referer`) masked as every shown URL is.
 */
export function maskHeadersForView(
  headers: Readonly<Record<string, string>>,
  names: CredentialNames = NO_NAMES,
  secrets: readonly string[] = [],
): Record<string, string> {
  return maskRecord(
    headers,
    (name) => isCredentialHeader(name, names),
    (value) => redactText(secrets.length === 0 ? value : maskSentIn(value, secrets), names),
  );
}

/**
 * A copy of form fields for a `console.log()` view: credential-like names
 * (`password`, `client_secret`) masked, as the OAuth step sends its secret
 * in such a field and errors carry their request.
 */
export function maskFieldsForView<T>(
  fields: Readonly<Record<string, T>>,
): Record<string, T | typeof MASK> {
  return maskRecord(fields, (name) => isCredentialField(name));
}

/**
 * A copy of `headers` with the values of credential headers
 * ({@linkcode isCredentialHeader}) masked, and the URLs in the others
 * (`Location`, `Link`) masked as every shown URL is; `extra` holds further
 * lower-case names, of headers and of query parameters.
 */
export function maskHeaders(
  headers: Readonly<Record<string, string>>,
  extra: CredentialNames = NO_NAMES,
): Record<string, string> {
  return maskRecord(
    headers,
    (name) => isCredentialHeader(name, extra),
    (value) => redactText(value, extra),
  );
}

/**
 * A copy of query parameters for a view: the values of credential-like names
 * masked, by the rule of the URL's own query.
 */
export function maskParamsForView<T>(params: Readonly<Record<string, T>>): Record<string, T> {
  return maskRecord(params, (name) => isCredentialField(name)) as Record<string, T>;
}

/**
 * Form fields for a log line: the values of credential-like names masked, as
 * in a URL's query (`client_secret`, `password`, `token`…), and of
 * `sensitive` ones (lower-case names).
 */
export function maskFormForLog<T>(
  data: Readonly<Record<string, T>>,
  sensitive: CredentialNames,
): Record<string, T> {
  return maskRecord(data, (name) => isCredentialField(name, sensitive)) as Record<string, T>;
}

/** How deep {@linkcode maskDeepForView} goes; deeper values are masked whole. */
const MAX_DEPTH = 16;

/**
 * A copy of nested options or a JSON body for a view: a value under a
 * credential-like key is masked; under a credential-like key holding an
 * object (`basicAuth: { username, password }`) every value but a `username`
 * is, and the `username` too when no password stands beside it (a user name
 * alone is often a token). With `urls`, every other string and `URL` is
 * shown through {@linkcode redactUrl} (a proxy URL's user-info).
 */
export function maskDeepForView(
  value: unknown,
  urls: boolean,
  secret = false,
  depth = 0,
  extra: CredentialNames = NO_NAMES,
): unknown {
  if (depth > MAX_DEPTH) return MASK;
  if (value instanceof URL) return urls ? redactUrl(value.href) : value;
  if (Array.isArray(value)) {
    return value.map((item) => maskDeepForView(item, urls, secret, depth + 1, extra));
  }
  if (
    value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype
  ) {
    const masked: Record<string, unknown> = {};
    const password = (value as { password?: unknown }).password;
    const loneUser = password === undefined || password === "";
    for (const [key, item] of Object.entries(value)) {
      const hidden = secret ? key !== "username" || loneUser : isCredentialField(key, extra);
      masked[key] = maskDeepForView(item, urls, hidden, depth + 1, extra);
    }
    return masked;
  }
  if (secret && value !== undefined && value !== null) return MASK;
  return urls && typeof value === "string" ? redactUrl(value) : value;
}

/**
 * The text of a JSON body with the values under credential-like keys (and
 * the lower-case names in `extra`) masked, as {@linkcode maskDeepForView}
 * masks them; the text as it is when nothing is masked (its spelling kept)
 * or when it is not JSON.
 */
export function maskJsonText(text: string, extra: CredentialNames = NO_NAMES): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (value === null || typeof value !== "object") return text;
  const masked = JSON.stringify(maskDeepForView(value, false, false, 0, extra));
  return masked === JSON.stringify(value) ? text : masked;
}

/**
 * The text of a URL-encoded form with the values of credential-like fields
 * masked, as in a URL's query ({@linkcode redactQuery}), and of `extra`
 * ones (lower-case names).
 */
export function maskFormText(text: string, extra: CredentialNames = NO_NAMES): string {
  return redactQuery(`?${text}`, extra).slice(1);
}

type Inspect = (value: unknown, options?: unknown) => string;

/**
 * Defines on `target`, not enumerable: `key` giving `view(this)`, and Deno's
 * and Node's `console.log()` views giving `show(this, inspect, options)`.
 */
function defineViews<T>(
  target: object,
  key: PropertyKey,
  view: (self: T) => Record<string, unknown>,
  show: (self: T, inspect: Inspect, options: unknown) => string,
): void {
  Object.defineProperties(target, {
    [key]: {
      value(this: T) {
        return view(this);
      },
    },
    [Symbol.for("Deno.customInspect")]: {
      value(this: T, inspect: Inspect, options: unknown) {
        return show(this, inspect, options);
      },
    },
    [Symbol.for("nodejs.util.inspect.custom")]: {
      value(this: T, _depth: number, options: unknown, inspect: Inspect) {
        return show(this, inspect, options);
      },
    },
  });
}

/**
 * Gives `target` (a plain object, such as a built configuration) a
 * `toJSON()` and Deno's and Node's `console.log()` views that show `view()`,
 * after `label` when one is given. The properties are not enumerable, so a
 * spread copy of `target` carries none of them.
 */
export function withView<T extends object>(
  target: T,
  view: () => Record<string, unknown>,
  label?: string,
): T {
  defineViews(target, "toJSON", view, (_, inspect, options) => {
    const shown = inspect(view(), options);
    return label === undefined ? shown : `${label} ${shown}`;
  });
  return target;
}

/** Where {@linkcode defineRedactedInspect} keeps a class's view function. */
export const VIEW: unique symbol = Symbol("view");

/**
 * The masked view of `value` for `toJSON()`: a value whose class defined one
 * gives its view; binary data and streams, which JSON cannot show, become a
 * summary such as `Uint8Array(42)`.
 */
export function jsonView(value: object): Record<string, unknown> {
  const view = (value as { [VIEW]?: () => Record<string, unknown> })[VIEW]?.call(value) ?? {};
  const shown: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(view)) {
    shown[key] =
      item !== null && typeof item === "object" && Object.getPrototypeOf(item) === Object.prototype
        ? Object.fromEntries(
          Object.entries(item).map(([name, inner]) => [name, summarizeBinary(inner)]),
        )
        : summarizeBinary(item);
  }
  return shown;
}

function summarizeBinary(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${value.byteLength})`;
  if (value instanceof ArrayBuffer) return `ArrayBuffer(${value.byteLength})`;
  if (value instanceof Blob) return `${value.constructor.name}(${value.size})`;
  if (value instanceof ReadableStream) return "ReadableStream";
  return value;
}

/**
 * Makes Deno's and Node's `console.log()` show `view(instance)` (a redacted
 * plain object) instead of the instance's fields, and {@linkcode jsonView}
 * give it. Defined on the prototype, so it stays out of the public types.
 */
export function defineRedactedInspect<T extends object>(
  target: { prototype: T; name: string },
  view: (instance: T) => Record<string, unknown>,
): void {
  defineViews(
    target.prototype,
    VIEW,
    view,
    (self, inspect, options) => `${target.name} ${inspect(view(self), options)}`,
  );
}

// What the library shows of an exception: its own fields through their
// masked views, and a cause from the runtime (whose message may name the URL
// with its query) as a copy whose texts are masked.

const BUILT_IN_ERRORS = [TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError];

/** How many causes deep a view goes; a longer chain ends in `***`. */
const MAX_CAUSES = 8;

/** Exceptions whose cause came from a user's code: its text is never shown. */
const OPAQUE_CAUSES = new WeakSet<Error>();

/**
 * Marks `error`'s cause as a user's error whose text may hold anything (a
 * token step's error may quote the secret it was sent): views show only its
 * class. The cause itself stays on `error`, unchanged.
 */
export function hideCauseText<E extends Error>(error: E): E {
  OPAQUE_CAUSES.add(error);
  return error;
}

/**
 * The masked view of an exception of the library: `name`, `message`,
 * `stack`, its own fields (`request`, `response`…, each shown through its
 * own view) and `cause` (see {@linkcode maskedCause}).
 */
export function errorView(error: Error): Record<string, unknown> {
  const view: Record<string, unknown> = {
    name: error.name,
    message: error.message,
    stack: error.stack,
  };
  for (const [key, value] of Object.entries(error)) view[key] = maskedCause(value, 0);
  if (error.cause !== undefined) {
    view.cause = OPAQUE_CAUSES.has(error) ? opaqueCause(error.cause) : maskedCause(error.cause, 0);
  }
  return view;
}

/**
 * A user's error as a view shows it: its class, and `***` for its message.
 * One of the library's own keeps its masked fields (its request, say), but
 * not its message, nor anything of its causes but their classes: its cause
 * may be the user's text again (a JSON parser quoting a body).
 */
function opaqueCause(cause: unknown, depth = 0): unknown {
  if (!(cause instanceof Error) || depth >= MAX_CAUSES) return MASK;
  const stack = `${cause.name}: ${MASK}`;
  if (VIEW in cause) {
    const view: Record<string, unknown> = { ...errorView(cause), message: MASK, stack };
    if (cause.cause !== undefined) view.cause = opaqueCause(cause.cause, depth + 1);
    return view;
  }
  return withHidden(new Error(MASK), {
    name: cause.name,
    stack,
    toJSON: () => ({ name: cause.name, message: MASK }),
  });
}

/** `copy` with `fields` as its own, not enumerable (as an error's `name` and `stack` are). */
function withHidden(copy: Error, fields: Record<string, unknown>): Error {
  for (const [key, value] of Object.entries(fields)) {
    Object.defineProperty(copy, key, { value, writable: true, configurable: true });
  }
  return copy;
}

/**
 * A value an exception carries, as a view may show it: one of the library's
 * own (it masks itself) as it is; a runtime's error as a copy of the same
 * class name whose message, stack and fields are masked with
 * {@linkcode redactText}, its causes too, and whose `toJSON()` gives
 * `{ name, message, ...fields, cause }`; a string masked; any other object as
 * its `String()`.
 */
export function maskedCause(value: unknown, depth: number): unknown {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) {
    return typeof value === "string" ? redactText(value) : value;
  }
  if (VIEW in value) return value;
  if (depth >= MAX_CAUSES) return MASK;
  if (!(value instanceof Error)) return redactText(describe(value));
  // The same built-in class, so that console.log() names it as the original.
  const Class = BUILT_IN_ERRORS.find((Built) => value.constructor === Built) ?? Error;
  const copy = new Class(redactText(value.message));
  const fields: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null || typeof field !== "object" && typeof field !== "function") {
      fields[key] = maskedCause(field, depth + 1);
    }
  }
  Object.assign(copy, fields);
  const cause = value.cause === undefined ? {} : { cause: maskedCause(value.cause, depth + 1) };
  return withHidden(copy, {
    name: value.name,
    stack: redactText(value.stack ?? `${value.name}: ${copy.message}`),
    ...cause,
    toJSON: () => ({ name: value.name, message: copy.message, ...fields, cause: copy.cause }),
  });
}

/**
 * Masks, in place, the message, stack and string fields of every runtime
 * error down the cause chain of `cause` (Deno's fetch names the URL, query
 * included, in its message; Bun's in a `path` field), so that what walks the
 * chain itself (pino's error serializer, `JSON.stringify`, an uncaught
 * error's report) finds no secret either. The errors stay the causes, with
 * their class and fields; one that cannot be changed is left.
 */
export function maskCauseTexts(cause: unknown): void {
  for (let error = cause, depth = 0; error instanceof Error && depth < MAX_CAUSES; depth++) {
    if (!(VIEW in error)) {
      const fields = error as unknown as Record<string, unknown>;
      for (const key of new Set(["message", "stack", ...Object.keys(error)])) {
        try {
          const value = fields[key];
          if (typeof value !== "string") continue;
          const masked = redactText(value);
          if (masked !== value) fields[key] = masked;
        } catch {
          // Frozen, read-only, or a getter: the error's view is masked still.
        }
      }
    }
    error = error.cause;
  }
}

function describe(value: object): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * Makes Deno's and Node's `console.log()` of an exception class show its
 * stack (whose message is masked already) followed by the masked fields of
 * {@linkcode errorView}, and registers that view for `toJSON()`.
 */
export function defineErrorInspect(target: { prototype: Error }): void {
  defineViews(target.prototype, VIEW, errorView, (error: Error, inspect, options) => {
    const { name: _, message: __, stack: ___, ...rest } = errorView(error);
    const stack = error.stack ?? `${error.name}: ${error.message}`;
    return Object.keys(rest).length === 0 ? stack : `${stack} ${inspect(rest, options)}`;
  });
}
