// The redirect layer of one call: sends the request by the exchange, and
// while the answer is a redirect the client follows, builds the next hop
// and sends it by the exchange in the same step. A hop that leaves the
// origin drops the credentials and asks the auth layer, when the client
// has an auth hook, to apply it again.

import { describeCall, HttpClientException } from "../errors.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { RequestContext } from "../models/context.ts";
import { redactUrl } from "../masking/views.ts";
import { type CredentialNames, isCredentialHeader } from "../masking/credentials.ts";
import { leavesOrigin } from "../http/url.ts";
import type { Step } from "./deadline.ts";
import { Redirect, sendSingleRequest } from "./exchange.ts";
import type { SendOptions } from "./chain.ts";
import type { ExchangeReason } from "../hooks/hook_interfaces.ts";

/** The auth layer as a redirect sees it (a client without an auth hook has none). */
export interface HopAuth {
  /** Lower-case names of the headers the auth hook added: dropped when a hop leaves the origin. */
  readonly headers: ReadonlySet<string>;
  /** True when this is a resend after a 401 (the auth hook refreshed its credentials). */
  readonly resend?: boolean | undefined;
  /** Applies the auth hook to a hop that left the origin, where it is allowed; names the headers it added. */
  reapply(hop: HttpRequest): Promise<{ request: HttpRequest; added: ReadonlySet<string> }>;
}

const NONE: ReadonlySet<string> = new Set();

/** The changes that turn a hop into a GET without a body. */
const TO_GET = Object.freeze(
  {
    method: "GET",
    data: undefined,
    jsonData: undefined,
    files: undefined,
    body: undefined,
  } as const,
);

/**
 * Sends a prepared request (absolute URL, headers merged) and follows its
 * redirects, all in the auth layer's `step`, so the hops and the body read
 * share one timeout. Failures of the exchanges arrive as the library's
 * exceptions; those of `auth` (the auth hook on a hop) pass as they are.
 */
export async function sendWithRedirects(
  request: HttpRequest,
  options: SendOptions,
  context: RequestContext,
  auth: HopAuth | undefined,
  step: Step,
): Promise<HttpResponse> {
  const sending = { options, context, step, request, since: performance.now() };
  let hop = request;
  let reason: ExchangeReason = auth?.resend ? "auth" : context.attempt > 0 ? "retry" : "first";
  // Every header the auth hook added on any hop so far leaves with the origin (the
  // client's credential names, with their exceptions, are asked of each header as well).
  let authHeaders = new Set([...auth?.headers ?? NONE]);
  for (let count = 0;; count++) {
    const answer = await sendSingleRequest(sending, hop, reason);
    if (!(answer instanceof Redirect)) return answer;
    if (count === options.maxRedirects) throw tooManyRedirects(request, count);
    const next = nextUrl(request, answer.location, answer.url);
    const left = leavesOrigin(new URL(answer.url), next);
    hop = redirectRequest(hop, answer.toGet, next, left, authHeaders, options.credentialHeaders);
    if (left && auth !== undefined) {
      const reapplied = await auth.reapply(hop);
      hop = reapplied.request;
      authHeaders = new Set([...authHeaders, ...reapplied.added]);
    }
    reason = "redirect";
  }
}

function tooManyRedirects(request: HttpRequest, maxRedirects: number): HttpClientException {
  return new HttpClientException(
    `Too many redirects (more than ${maxRedirects}): ${describeCall(request)}`,
    { request },
  );
}

function nextUrl(request: HttpRequest, location: string, from: string): URL {
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

/**
 * The request for the hop to `to`: turned into a GET without a body when
 * `toGet` (the exchange tells it with the redirect, as httpx does: a 303,
 * a 302, a 301 after a POST), else with the method and body (a stream
 * body never gets here: sendSingleRequest returns such a redirect as the
 * response). A hop that `left` the origin
 * (another origin, or https to http) drops the credential headers (the
 * credential headers of the client (`credentials`: {@linkcode isCredentialHeader}),
 * and `authHeaders`, which the auth hook added) and `auth`.
 */
function redirectRequest(
  hop: HttpRequest,
  toGet: boolean,
  to: URL,
  left: boolean,
  authHeaders: ReadonlySet<string>,
  credentials: CredentialNames | undefined,
): HttpRequest {
  const dropped = (name: string): boolean => {
    const lower = name.toLowerCase();
    return (left && (isCredentialHeader(lower, credentials) || authHeaders.has(lower))) ||
      (toGet && (lower === "content-type" || lower === "content-length"));
  };
  const headers = hop.headers &&
    Object.fromEntries(Object.entries(hop.headers).filter(([name]) => !dropped(name)));
  return hop.with({
    url: to.href,
    params: undefined,
    headers,
    ...(toGet ? TO_GET : {}),
    ...(left ? { auth: undefined } : {}),
  });
}
