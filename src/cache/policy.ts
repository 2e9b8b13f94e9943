// RFC 9111's rules for a private cache, in the shape of http-cache-semantics'
// CachePolicy (which the cache used; its methods and its serialised fields
// kept, so stored entries read the same), written here where the library
// was not RFC 9111's (each place names the section) and as ES module code
// the browser build bundles like the rest:
// - any final status with explicit freshness is storable (3), a status it
//   does not understand only without must-understand (5.2.2.3, which also
//   makes no-store ignored for one it understands);
// - heuristic freshness only for a heuristically cacheable status or
//   `public` (4.2.2);
// - directives in any case (5.2), an invalid Expires (not an HTTP-date) is
//   already expired (5.3), Age is its first member and only an integer (5.1);
// - a served response keeps its Date (RFC 9110 6.6.1: the origin's), Age now;
// - a 304 adds its fields to the stored response (3.2, 4.3.4), and one
//   with no validator updates the one stored response it answers (4.3.4);
// - Vary compares normalised values (4.1, vary.ts);
// - must-revalidate is a rule on a stale response only (5.2.2.2), and
//   stale-if-error follows a failed exchange too (RFC 5861 4).

import { parseAge, parseHttpDate } from "./http_date.ts";
import { varyNames, varyValue } from "./vary.ts";

/** A request or a response as the policy reads them: lower-case header names. */
export interface PolicyMessage {
  readonly url?: string;
  readonly method?: string;
  readonly status?: number;
  readonly headers: Record<string, string>;
}

/** What `evaluateRequest()` answers. */
export interface Evaluation {
  /** Set when the stored response may be served (with these headers). */
  readonly response?: { readonly headers: Record<string, string> } | undefined;
  /** Set when the server must be asked: with these request headers, before serving when `synchronous`. */
  readonly revalidation?: {
    readonly headers: Record<string, string>;
    readonly synchronous: boolean;
  } | undefined;
}

/** The policy of a stored response: what the cache asks of it. */
export interface CachePolicy {
  storable(): boolean;
  evaluateRequest(request: PolicyMessage): Evaluation;
  revalidatedPolicy(
    request: PolicyMessage,
    response: PolicyMessage,
  ): { policy: CachePolicy; modified: boolean; matches: boolean };
  responseHeaders(): Record<string, string>;
  timeToLive(): number;
  stale(): boolean;
  age(): number;
  maxAge(): number;
  status(): number;
  toObject(): Record<string, unknown>;
  /** True when `request` may receive this response: its URL, method and Vary. */
  _requestMatches(request: PolicyMessage, allowHead: boolean): boolean;
  /** The stored response's headers. */
  readonly _resHeaders: Readonly<Record<string, string>>;
  /** The response's parsed Cache-Control: lower-case names. */
  readonly _rescc: Record<string, string | boolean>;
}

/** The statuses whose semantics the cache knows (for must-understand, RFC 9111 5.2.2.3). */
const UNDERSTOOD: ReadonlySet<number> = new Set([
  200,
  203,
  204,
  206,
  300,
  301,
  302,
  303,
  307,
  308,
  404,
  405,
  410,
  414,
  501,
]);
/** The heuristically cacheable statuses (RFC 9110 15.1). */
const HEURISTIC: ReadonlySet<number> = new Set([
  200,
  203,
  204,
  206,
  300,
  301,
  308,
  404,
  405,
  410,
  414,
  501,
]);
/** What a served response does not carry of the stored one (RFC 9110 7.6.1). */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);
/** What a 304 does not replace: they describe the stored content (RFC 9111 3.2). */
const NOT_UPDATED: ReadonlySet<string> = new Set([
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "content-range",
]);
/** The heuristic share of the time since Last-Modified (RFC 9111 4.2.2's 10%). */
const HEURISTIC_SHARE = 0.1;
/** The least freshness of an immutable response with no explicit lifetime, in ms. */
const IMMUTABLE_MS = 24 * 3600 * 1000;

/** A policy's fields (the serialised form: `t`, `st`, `resh`, `rescc`, `reqh`). */
interface Fields {
  readonly time: number;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly directives: Record<string, string | boolean>;
  /** The request headers the response's Vary names (raw), or `null` without Vary. */
  readonly varied: Record<string, string> | null;
  readonly url: string | undefined;
  readonly host: string | undefined;
  /** True when the request had a Range (a 206 answers only such a request). */
  readonly ranged: boolean;
}

/** The policy of a stored (or storable) response. */
class Policy implements CachePolicy {
  readonly _resHeaders: Record<string, string>;
  readonly _rescc: Record<string, string | boolean>;
  readonly #fields: Fields;
  #maxAge: number | undefined;

  constructor(fields: Fields) {
    this.#fields = fields;
    this._resHeaders = fields.headers;
    this._rescc = fields.directives;
  }

  now(): number {
    return Date.now();
  }

  status(): number {
    return this.#fields.status;
  }

  storable(): boolean {
    const { status, headers, ranged } = this.#fields;
    const cc = this._rescc;
    // A final status; a 206 only for a request with a Range (ranges.ts serves it).
    if (status < 200 || status > 599 || status === 304 || (status === 206 && !ranged)) return false;
    const understood = UNDERSTOOD.has(status);
    // must-understand: stored only with a status the cache understands, and
    // then no-store is ignored (RFC 9111 5.2.2.3).
    if (cc["must-understand"] !== undefined) {
      if (!understood) return false;
    } else if (cc["no-store"] !== undefined) return false;
    // Any status with explicit freshness, public or private; else a
    // heuristically cacheable one (RFC 9111 3).
    return cc["max-age"] !== undefined || headers.expires !== undefined ||
      cc.public !== undefined || cc.private !== undefined || HEURISTIC.has(status);
  }

  /** The response's Date in ms, else when it came. */
  #date(): number {
    const date = parseHttpDate(this._resHeaders.date);
    return Number.isNaN(date) ? this.#fields.time : date;
  }

  /** The freshness lifetime in seconds (RFC 9111 4.2.1). */
  maxAge(): number {
    return this.#maxAge ??= this.#lifetime();
  }

  #lifetime(): number {
    const cc = this._rescc;
    const headers = this._resHeaders;
    if (!this.storable() || cc["no-cache"] !== undefined) return 0;
    if (varyNames(headers.vary).includes("*")) return 0;
    if (cc["max-age"] !== undefined) return seconds(cc["max-age"]);
    const least = cc.immutable !== undefined ? IMMUTABLE_MS / 1000 : 0;
    const date = this.#date();
    if (headers.expires !== undefined) {
      // An invalid Expires, "0" among them, is already expired (RFC 9111 5.3).
      const expires = parseHttpDate(headers.expires);
      if (Number.isNaN(expires) || expires < date) return 0;
      return Math.max(least, (expires - date) / 1000);
    }
    // Heuristic freshness only for a heuristically cacheable status or public (RFC 9111 4.2.2).
    if (!HEURISTIC.has(this.#fields.status) && cc.public === undefined) return least;
    const modified = parseHttpDate(headers["last-modified"]);
    if (!Number.isNaN(modified) && date > modified) {
      return Math.max(least, ((date - modified) / 1000) * HEURISTIC_SHARE);
    }
    return least;
  }

  /** The current age in seconds: the Age it came with and the time it has been stored. */
  age(): number {
    return parseAge(this._resHeaders.age) + (this.now() - this.#fields.time) / 1000;
  }

  stale(): boolean {
    return this.maxAge() <= this.age();
  }

  timeToLive(): number {
    const left = this.maxAge() - this.age();
    const extra = Math.max(
      seconds(this._rescc["stale-if-error"]),
      seconds(this._rescc["stale-while-revalidate"]),
    );
    return Math.round(Math.max(0, left, left + extra) * 1000);
  }

  evaluateRequest(request: PolicyMessage): Evaluation {
    const miss = () => ({ revalidation: this.#revalidation(request, true) });
    if (!this._requestMatches(request, false)) return miss();
    const asked = parseCacheControl(request.headers["cache-control"]);
    if (asked["no-cache"] !== undefined || /no-cache/.test(request.headers.pragma ?? "")) {
      return miss();
    }
    const age = this.age();
    if (asked["max-age"] !== undefined && age > seconds(asked["max-age"])) return miss();
    if (asked["min-fresh"] !== undefined && this.maxAge() - age < seconds(asked["min-fresh"])) {
      return miss();
    }
    if (this.stale()) {
      // A stale must-revalidate response is never served unvalidated (RFC 9111 5.2.2.2).
      if (this._rescc["must-revalidate"] !== undefined) return miss();
      const maxStale = asked["max-stale"];
      if (
        maxStale === true || (maxStale !== undefined && seconds(maxStale) > age - this.maxAge())
      ) {
        return { response: { headers: this.responseHeaders() } };
      }
      const swr = seconds(this._rescc["stale-while-revalidate"]);
      if (swr > 0 && this.maxAge() + swr > age) {
        return {
          response: { headers: this.responseHeaders() },
          revalidation: this.#revalidation(request, false),
        };
      }
      return miss();
    }
    return { response: { headers: this.responseHeaders() } };
  }

  /** The validators to send for `request` (RFC 9111 4.3.1). */
  #revalidation(request: PolicyMessage, synchronous: boolean): Evaluation["revalidation"] {
    const headers: Record<string, string> = {};
    for (const name of ["if-none-match", "if-modified-since"]) {
      const value = request.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    if (!this._requestMatches(request, true) || !this.storable()) {
      return { headers: {}, synchronous };
    }
    const { etag, "last-modified": modified } = this._resHeaders;
    if (etag !== undefined) {
      headers["if-none-match"] = headers["if-none-match"] === undefined
        ? etag
        : `${headers["if-none-match"]}, ${etag}`;
    }
    if (modified !== undefined && headers["if-modified-since"] === undefined) {
      headers["if-modified-since"] = modified;
    }
    return { headers, synchronous };
  }

  _requestMatches(request: PolicyMessage, allowHead: boolean): boolean {
    const { url, host, varied } = this.#fields;
    if (url !== undefined && url !== request.url) return false;
    if (host !== request.headers.host) return false;
    if (
      request.method !== undefined && request.method !== "GET" &&
      !(allowHead && request.method === "HEAD")
    ) return false;
    for (const name of varyNames(this._resHeaders.vary)) {
      if (name === "*") return false;
      const stored = varied !== null && Object.hasOwn(varied, name) ? varied[name] : undefined;
      const asked = Object.hasOwn(request.headers, name) ? request.headers[name] : undefined;
      if (varyValue(name, stored) !== varyValue(name, asked)) return false;
    }
    return true;
  }

  /** The stored headers but hop-by-hop ones, with `Age` now (and a `Date` if it had none). */
  responseHeaders(): Record<string, string> {
    const stored = this._resHeaders;
    const headers: Record<string, string> = {};
    const named = stored.connection === undefined
      ? undefined
      : new Set(stored.connection.toLowerCase().split(",").map((name) => name.trim()));
    for (const name in stored) {
      if (HOP_BY_HOP.has(name) || named?.has(name)) continue;
      headers[name] = stored[name]!;
    }
    headers.age = `${Math.round(this.age())}`;
    // The origin's Date stays (RFC 9110 6.6.1); one that came without gets when it came.
    headers.date ??= httpDate(this.#fields.time);
    return headers;
  }

  revalidatedPolicy(
    request: PolicyMessage,
    response: PolicyMessage,
  ): { policy: CachePolicy; modified: boolean; matches: boolean } {
    const matches = response.status === undefined || response.status === 304
      ? this.#selects(response.headers)
      : false;
    if (!matches) {
      return {
        policy: policyOf(request, response),
        modified: response.status !== 304,
        matches: false,
      };
    }
    // The 304's fields replace and add to the stored ones (RFC 9111 3.2), but
    // those that describe the stored content.
    const headers = { ...this._resHeaders };
    for (const name in response.headers) {
      if (!NOT_UPDATED.has(name)) headers[name] = response.headers[name]!;
    }
    const { varied, url, host, ranged } = this.#fields;
    const policy = new Policy({
      time: this.now(),
      status: this.#fields.status,
      headers,
      directives: headers["cache-control"] === this._resHeaders["cache-control"]
        ? this._rescc
        : parseCacheControl(headers["cache-control"]),
      varied: headers.vary === undefined ? null : pick(request.headers, headers.vary, varied),
      url,
      host,
      ranged,
    });
    return { policy, modified: false, matches: true };
  }

  /**
   * True when a 304 with `headers` selects this stored response (RFC 9111
   * 4.3.4): the same strong validator, the same weak one, the same
   * Last-Modified; and one with no validator selects it, the one stored
   * response its conditional request named.
   */
  #selects(headers: Record<string, string>): boolean {
    const { etag, "last-modified": modified } = headers;
    const stored = this._resHeaders;
    if (etag !== undefined) {
      return stored.etag !== undefined && weakless(stored.etag) === weakless(etag);
    }
    if (modified !== undefined) return stored["last-modified"] === modified;
    return true;
  }

  toObject(): Record<string, unknown> {
    const { time, status, headers, directives, varied } = this.#fields;
    const object: Record<string, unknown> = {
      t: time,
      st: status,
      resh: headers,
      rescc: directives,
    };
    if (varied !== null) object.reqh = varied;
    return object;
  }
}

/** An entity tag without its weakness mark. */
function weakless(tag: string): string {
  return tag.trim().replace(/^W\//, "");
}

/** The values in `headers` (else in `fallback`) of the fields `vary` names. */
function pick(
  headers: Record<string, string>,
  vary: string,
  fallback: Record<string, string> | null = null,
): Record<string, string> {
  const varied: Record<string, string> = {};
  for (const name of varyNames(vary)) {
    const value = Object.hasOwn(headers, name)
      ? headers[name]
      : fallback !== null && Object.hasOwn(fallback, name)
      ? fallback[name]
      : undefined;
    if (value !== undefined) varied[name] = value;
  }
  return varied;
}

let dateSecond = NaN;
let dateText = "";

/** The HTTP date of `ms` (to the second), formatted once a second. */
function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== dateSecond) {
    [dateSecond, dateText] = [second, new Date(second * 1000).toUTCString()];
  }
  return dateText;
}

/** The policy of a response to `request`, as a private cache judges it. */
export function policyOf(request: PolicyMessage, response: PolicyMessage): CachePolicy {
  const headers = response.headers;
  return new Policy({
    time: Date.now(),
    status: response.status ?? 200,
    headers,
    directives: parseCacheControl(headers["cache-control"]),
    varied: headers.vary === undefined ? null : pick(request.headers, headers.vary),
    url: request.url,
    host: request.headers.host,
    ranged: request.headers.range !== undefined,
  });
}

/**
 * What a store keeps of `policy`: when the response came, its status and
 * headers, their parsed Cache-Control and the request headers its Vary
 * names (the URL is the key's).
 */
export function policyMeta(policy: CachePolicy): Record<string, unknown> {
  return policy.toObject();
}

/** The policy of `meta` ({@linkcode policyMeta}) for a stored response to `request`; throws when it is not one. */
export function policyFrom(
  meta: Readonly<Record<string, unknown>>,
  request: PolicyMessage,
): CachePolicy {
  const { t, st, resh, rescc, reqh = null } = meta;
  if (
    !Number.isFinite(t) || !Number.isInteger(st) || (st as number) < 200 ||
    (st as number) > 599 || !isRecord(resh, "string") || !isRecord(rescc, "string", "boolean") ||
    (reqh !== null && !isRecord(reqh, "string"))
  ) {
    throw new TypeError("the store answered an entry whose metadata is not a cache policy's");
  }
  const headers = resh as Record<string, string>;
  return new Policy({
    time: t as number,
    status: st as number,
    headers,
    // Parsed again when an older entry's names are not all lower-case.
    directives: Object.keys(rescc).every((name) => name === name.toLowerCase())
      ? rescc as Record<string, string | boolean>
      : parseCacheControl(headers["cache-control"]),
    varied: reqh as Record<string, string> | null,
    url: request.url,
    host: request.headers.host,
    ranged: (st as number) === 206,
  });
}

/** True when `value` is a plain record whose values are all of the `types`. */
function isRecord(value: unknown, ...types: string[]): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.values(value).every((field) => types.includes(typeof field));
}

/** What to do with the stored response of `policy` for `request` (RFC 9111 4). */
export function evaluate(policy: CachePolicy, request: PolicyMessage): Evaluation {
  return policy.evaluateRequest(request);
}

/**
 * True when the stale response of `policy` may stand in for a failed
 * revalidation (an exchange that failed, or a 5xx): within the
 * `stale-if-error` lifetime of the response or of `requestDirectives`
 * (RFC 5861 4), never with `must-revalidate` or `no-cache`.
 */
export function staleIfError(
  policy: CachePolicy,
  requestDirectives: Readonly<Record<string, string | true>>,
): boolean {
  const directives = policy._rescc;
  if (directives["must-revalidate"] !== undefined || directives["no-cache"] !== undefined) {
    return false;
  }
  const window = Math.max(
    seconds(directives["stale-if-error"]),
    seconds(requestDirectives["stale-if-error"]),
  );
  return window > 0 && policy.age() - policy.maxAge() < window;
}

/** A directive's value in seconds: its leading digits (0 when absent or none). */
function seconds(value: string | boolean | undefined): number {
  const number = typeof value === "string" ? parseInt(value, 10) : 0;
  return Number.isFinite(number) && number > 0 ? number : 0;
}

/** The directives of a Cache-Control value: lower-case names, `true` for a directive without a value. */
export function parseCacheControl(value: string | undefined): Record<string, string | true> {
  const directives: Record<string, string | true> = {};
  if (value === undefined) return directives;
  for (const part of value.split(",")) {
    const [name = "", argument] = part.split("=", 2);
    const key = name.trim().toLowerCase();
    if (key === "") continue;
    directives[key] = argument === undefined ? true : argument.trim().replace(/^"|"$/g, "");
  }
  return directives;
}
