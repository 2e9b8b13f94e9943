import { describeCall, HttpClientException } from "../errors.ts";
import type { HttpRequest } from "../models/request.ts";
import { redactUrl, SENSITIVE_HEADERS } from "../models/_redact.ts";
import { discardBody } from "../transport/read_body.ts";
import type { WireResponse } from "../transport/types.ts";

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** What a redirect must know of the auth hook. */
export interface RedirectAuth {
  /** Lower-case names of the headers the auth hook added: dropped when a hop leaves the origin. */
  readonly headers: ReadonlySet<string>;
  /** Applies the auth hook to a hop that left the origin, where it is allowed; names the headers it added. */
  reapply(hop: HttpRequest): Promise<{ request: HttpRequest; added: ReadonlySet<string> }>;
}

/** Carries an error thrown by a user's hook through the transport's error mapping unchanged. */
export class HookError {
  /** Wraps `error`. */
  constructor(readonly error: unknown) {}
}

/** The last response of a call and the URL it came from. */
export interface FinalResponse {
  readonly response: WireResponse;
  readonly url: string;
}

/** True when `response` is a redirect the client may follow: a 301, 302, 303, 307 or 308 with a Location. */
export function isRedirect(response: WireResponse): boolean {
  return REDIRECT_STATUSES.has(response.status) && response.location !== null;
}

/**
 * Follows redirects from `first`, the response to `request`, sending each
 * hop with `send`, up to `maxRedirects` hops (0: the 3xx response is
 * returned). As in httpx and
 * requests, 303 and 302 turn any method but HEAD into GET without a body,
 * 301 turns POST into GET; 307 and 308 keep the method and body. A hop to another origin, or from https to http, drops
 * the credential headers (the fixed set and `credentialHeaders`), the
 * headers the auth hook added and `auth`, and applies the auth hook again
 * where `auth` allows. More hops than allowed is an
 * HttpClientException.
 */
export async function followRedirects(
  request: HttpRequest,
  first: FinalResponse,
  maxRedirects: number,
  send: (hop: HttpRequest) => Promise<WireResponse>,
  auth?: RedirectAuth,
  credentialHeaders: ReadonlySet<string> = new Set(),
): Promise<FinalResponse> {
  let hop = request;
  let { response, url } = first;
  // The declared credential headers and every header the auth hook added on
  // any hop so far: all leave with the origin.
  let authHeaders = new Set([...credentialHeaders, ...auth?.headers ?? []]);
  for (let count = 0;; count++) {
    if (!isRedirect(response) || maxRedirects === 0) return { response, url };
    await discardBody(response);
    if (count === maxRedirects) {
      throw new HttpClientException(
        `Too many redirects (more than ${maxRedirects}): ${describeCall(request)}`,
        { request },
      );
    }
    const next = nextUrl(request, url, response.location as string);
    const from = new URL(url);
    const leavesOrigin = from.origin !== next.origin ||
      (from.protocol === "https:" && next.protocol === "http:");
    hop = redirectRequest(hop, response.status, next, leavesOrigin, authHeaders);
    if (leavesOrigin && auth !== undefined) {
      const reapplied = await auth.reapply(hop).catch((error) => {
        throw new HookError(error);
      });
      hop = reapplied.request;
      authHeaders = new Set([...authHeaders, ...reapplied.added]);
    }
    url = next.href;
    response = await send(hop);
  }
}

function nextUrl(request: HttpRequest, from: string, location: string): URL {
  const next = URL.parse(location, from);
  if (next === null || (next.protocol !== "http:" && next.protocol !== "https:")) {
    throw new HttpClientException(
      `Redirect to an invalid or unsupported URL ${JSON.stringify(redactUrl(location))}: ${
        describeCall(request)
      }`,
      { request },
    );
  }
  return next;
}

function redirectRequest(
  hop: HttpRequest,
  status: number,
  to: URL,
  leavesOrigin: boolean,
  authHeaders: ReadonlySet<string> = new Set(),
): HttpRequest {
  const toGet = (status === 301 && hop.method === "POST") ||
    ((status === 302 || status === 303) && hop.method !== "HEAD");
  const dropped = (name: string): boolean => {
    const lower = name.toLowerCase();
    return (leavesOrigin && (SENSITIVE_HEADERS.has(lower) || authHeaders.has(lower))) ||
      (toGet && (lower === "content-type" || lower === "content-length"));
  };
  const headers = hop.headers &&
    Object.fromEntries(Object.entries(hop.headers).filter(([name]) => !dropped(name)));
  return hop.with({
    url: to.href,
    params: undefined,
    headers,
    ...(toGet ? { method: "GET", data: undefined, jsonData: undefined, files: undefined } : {}),
    ...(leavesOrigin ? { auth: undefined } : {}),
  });
}
