// What the library shows of a value: credentials are masked in every
// message, log line, toString() and console.log() view.

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
 * `X-Token` or `X-Session-Key`): masked in `console.log()` views, which
 * follow no spec line shape and can afford to mask more than needed.
 */
const CREDENTIAL_LIKE = /auth|token|secret|key|cookie|session|passw/i;

/** A copy of `headers` for a `console.log()` view: sensitive and credential-like values masked. */
export function maskHeadersForView(
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  const masked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    masked[name] = SENSITIVE_HEADERS.has(name.toLowerCase()) || CREDENTIAL_LIKE.test(name)
      ? MASK
      : value;
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

/** The mask written in place of a secret. */
export const MASK = "***";

/**
 * A copy of `headers` with the values of sensitive names masked; `extra`
 * holds further lower-case names.
 */
export function maskHeaders(
  headers: Readonly<Record<string, string>>,
  extra: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const masked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    masked[name] = SENSITIVE_HEADERS.has(lower) || extra.has(lower) ? MASK : value;
  }
  return masked;
}

/** The URL with the password of its user-info part masked. */
export function redactUrl(url: string): string {
  // Greedy up to the last `@` of the authority: a password may hold an `@`.
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*:)[^/?#]*@/i, `$1${MASK}@`);
}

type Inspect = (value: unknown, options?: unknown) => string;

/**
 * Makes Deno's and Node's `console.log()` show `view(instance)` (a redacted
 * plain object) instead of the instance's fields. Defined on the prototype,
 * so it stays out of the public types.
 */
export function defineRedactedInspect<T extends object>(
  target: { prototype: T; name: string },
  view: (instance: T) => Record<string, unknown>,
): void {
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
