// The middleware chain of one exchange (API.md "Middleware"): the links a
// client runs, outermost first, around the transport's exchange, and the
// cookie jar as the first of them.

import type { Middleware, MiddlewareFunction } from "../hooks/hook_interfaces.ts";
import { HttpRequest } from "../models/request.ts";
import { HttpResponse } from "../models/response.ts";
import type { RequestContext } from "../models/context.ts";
import { appendParams } from "../http/url.ts";
import type { CookieJarLike } from "../cookies/jar.ts";
import { addJarCookies } from "../cookies/jar.ts";
import { describeType } from "../models/_validate.ts";

/** A middleware as the chain calls it: a function, an object's `handle` bound to it. */
export type ChainLink = MiddlewareFunction;

/** The chain's links for `middleware` (the builder checked each), after the jar's when `jar`. */
export function chainLinks(
  middleware: readonly Middleware[],
  jar: CookieJarLike | undefined,
): readonly ChainLink[] {
  const links = middleware.map((entry) =>
    typeof entry === "function" ? entry : entry.handle.bind(entry)
  );
  return jar === undefined ? links : [cookieLink(jar), ...links];
}

/**
 * Runs `request` through `links` from the first, each given the next as
 * `next`, and `exchange` last. A link's request and response are checked:
 * a middleware that passes or returns something else fails the call with
 * a `TypeError` naming it.
 */
export function runChain(
  links: readonly ChainLink[],
  request: HttpRequest,
  context: RequestContext,
  exchange: (request: HttpRequest) => Promise<HttpResponse>,
): Promise<HttpResponse> {
  const at = (index: number, sent: unknown): Promise<HttpResponse> => {
    if (!(sent instanceof HttpRequest)) {
      return Promise.reject(
        new TypeError(
          `Invalid request passed to next(): expected an HttpRequest, got ${describeType(sent)}`,
        ),
      );
    }
    if (index === links.length) return exchange(sent);
    const link = links[index]!;
    return Promise.resolve(link(sent, (next) => at(index + 1, next), context)).then((response) => {
      if (response instanceof HttpResponse) return response;
      throw new TypeError(
        `Invalid middleware result: expected a promise of an HttpResponse, got ${
          describeType(response)
        }`,
      );
    });
  };
  return at(0, request);
}

/**
 * The cookie jar as the chain's first link: each exchange's request takes
 * the jar's cookies for its URL (a `Cookie` header of the request's own
 * wins for the names it sets), so every middleware sees them. The
 * exchange hands each head's Set-Cookie lines to the jar, as received.
 */
function cookieLink(jar: CookieJarLike): ChainLink {
  return async (request, next) => {
    const url = appendParams(request.url, request.params);
    return next(await addJarCookies(request, url, jar));
  };
}
