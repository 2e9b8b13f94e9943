// What the library shows of a value: credentials are masked in every
// message, log line, toString(), console.log() and JSON.stringify() view.

import { isSensitiveQueryName, MASK, redactText, redactUrl } from "./url.ts";

export { MASK, redactQuery, redactText, redactUrl } from "./url.ts";

/** Header names whose values are always masked, lower-case. */
export const SENSITIVE_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
]);

/**
 * Header names that look like credentials (custom auth headers such as
 * `X-Token` or `X-Session-Key`): masked in `console.log()` views, whose
 * text, unlike a logging hook's line, has no fixed form, so they can afford
 * to mask more than needed.
 */
const CREDENTIAL_LIKE = /auth|token|secret|key|cookie|session|passw/i;

/**
 * A copy of `headers` for a `console.log()` view: sensitive and
 * credential-like values masked, and the URLs in the others (`Location`,
 * `Link`, `Referer`) masked as every shown URL is.
 */
export function maskHeadersForView(
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  const masked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    masked[name] = SENSITIVE_HEADERS.has(name.toLowerCase()) || CREDENTIAL_LIKE.test(name)
      ? MASK
      : redactText(value);
  }
  return masked;
}

/**
 * A copy of form fields for a `console.log()` view: credential-like names
 * (`password`, `client_secret`) masked, as the OAuth step sends its secret
 * in such a field and errors carry their request.
 */
export function maskFieldsForView<T>(
  fields: Readonly<Record<string, T>>,
): Record<string, T | typeof MASK> {
  const masked: Record<string, T | typeof MASK> = {};
  for (const [name, value] of Object.entries(fields)) {
    masked[name] = CREDENTIAL_LIKE.test(name) ? MASK : value;
  }
  return masked;
}

/**
 * A copy of `headers` with the values of sensitive names masked, and the
 * URLs in the others (`Location`, `Link`) masked as every shown URL is;
 * `extra` holds further lower-case names, of headers and of query
 * parameters.
 */
export function maskHeaders(
  headers: Readonly<Record<string, string>>,
  extra: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const masked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    masked[name] = SENSITIVE_HEADERS.has(lower) || extra.has(lower)
      ? MASK
      : redactText(value, extra);
  }
  return masked;
}

/**
 * A copy of query parameters for a view: the values of credential-like names
 * masked, by the rule of the URL's own query.
 */
export function maskParamsForView<T>(params: Readonly<Record<string, T>>): Record<string, T> {
  const masked: Record<string, T> = {};
  for (const [name, value] of Object.entries(params)) {
    masked[name] = isSensitiveQueryName(name) ? MASK as T : value;
  }
  return masked;
}

/**
 * Form fields for a log line: the values of credential-like names masked, as
 * in a URL's query (`client_secret`, `password`, `token`…), and of
 * `sensitive` ones (lower-case names).
 */
export function maskFormForLog<T>(
  data: Readonly<Record<string, T>>,
  sensitive: ReadonlySet<string>,
): Record<string, T> {
  const masked = maskParamsForView(data);
  for (const name in masked) if (sensitive.has(name.toLowerCase())) masked[name] = MASK as T;
  return masked;
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
export function maskDeepForView(value: unknown, urls: boolean, secret = false, depth = 0): unknown {
  if (depth > MAX_DEPTH) return MASK;
  if (value instanceof URL) return urls ? redactUrl(value.href) : value;
  if (Array.isArray(value)) {
    return value.map((item) => maskDeepForView(item, urls, secret, depth + 1));
  }
  if (
    value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype
  ) {
    const masked: Record<string, unknown> = {};
    const password = (value as { password?: unknown }).password;
    const loneUser = password === undefined || password === "";
    for (const [key, item] of Object.entries(value)) {
      const hidden = secret ? key !== "username" || loneUser : CREDENTIAL_LIKE.test(key);
      masked[key] = maskDeepForView(item, urls, hidden, depth + 1);
    }
    return masked;
  }
  if (secret && value !== undefined && value !== null) return MASK;
  return urls && typeof value === "string" ? redactUrl(value) : value;
}

type Inspect = (value: unknown, options?: unknown) => string;

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
  const show = (inspect: Inspect, options: unknown) =>
    label === undefined ? inspect(view(), options) : `${label} ${inspect(view(), options)}`;
  return Object.defineProperties(target, {
    toJSON: { value: view },
    [Symbol.for("Deno.customInspect")]: { value: show },
    [Symbol.for("nodejs.util.inspect.custom")]: {
      value: (_depth: number, options: unknown, inspect: Inspect) => show(inspect, options),
    },
  });
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
  Object.defineProperty(target.prototype, VIEW, {
    value(this: T) {
      return view(this);
    },
  });
  Object.defineProperty(target.prototype, Symbol.for("Deno.customInspect"), {
    value(this: T, inspect: Inspect, options: unknown): string {
      return `${target.name} ${inspect(view(this), options)}`;
    },
  });
  Object.defineProperty(target.prototype, Symbol.for("nodejs.util.inspect.custom"), {
    value(this: T, _depth: number, options: unknown, inspect: Inspect): string {
      return `${target.name} ${inspect(view(this), options)}`;
    },
  });
}
