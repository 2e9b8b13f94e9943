// Pagination: the pages of a listing, each one call of the client, the next
// one found in the Link header's rel="next" or by the caller's next(); and
// the items of those pages.

import { describeCall, HttpClientException } from "../errors.ts";
import { mergeHeaders } from "../http/headers.ts";
import { linkTarget } from "../http/link.ts";
import { appendParams } from "../http/url.ts";
import { type HttpMethod, HttpRequest, type HttpRequestFields } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { validatePositive } from "../models/_validate.ts";
import {
  type CallOptions,
  CREDENTIALS_OF,
  type RequestOptions,
  splitRequestOptions,
} from "../client/call.ts";
import { HttpClient } from "../client/client.ts";

/**
 * The next page's request as `next()` returns it: the previous page's
 * request, changed. `url` (resolved against the previous page's URL)
 * replaces the URL and the previous `params`; `params` and `headers` are
 * merged over the previous ones (a param set to `undefined` is left out);
 * every other field replaces the previous one.
 */
export interface NextPageOptions extends RequestOptions {
  /** The next page's URL, relative to the previous page's, whose query replaces the previous `params`. */
  url?: string | URL | undefined;
  /** The method (default: the previous page's; the first page's is `GET`). */
  method?: HttpMethod | string | undefined;
}

/**
 * What `next()` returns: the next page's URL (resolved against the page's
 * URL, sent with the previous request's method, headers and body, without
 * its `params`: the URL carries its own query), its request as
 * {@linkcode NextPageOptions}, or `undefined` (or `null`) to stop.
 */
export type NextPage = string | URL | NextPageOptions | undefined | null;

/**
 * The options of {@linkcode paginate}: the first page's request
 * and call options (`params`, `headers`, `method`, a body, `signal`,
 * timeouts…; each page is one call, with its own timeouts), and how the
 * pages go on and end.
 */
export interface PaginateOptions<T = unknown> extends Omit<NextPageOptions, "url"> {
  /**
   * The items of a page (`(response) => response.json().items`), for
   * `next()` and `maxItems`; {@linkcode paginateItems} yields
   * them. It must return an array.
   */
  items?: ((response: HttpResponse) => readonly T[] | Promise<readonly T[]>) | undefined;
  /**
   * The next page after `response`, whose items are `items` (empty without
   * an `items` function); default: the target of the `Link` header's
   * `rel="next"`, resolved against the page's URL, or the end.
   */
  next?:
    | ((response: HttpResponse, items: readonly T[]) => NextPage | Promise<NextPage>)
    | undefined;
  /** The most pages to fetch (default: no limit). */
  maxPages?: number | undefined;
  /**
   * The most items: `paginateItems()` yields that many and fetches no more
   * pages; `paginate()` (where it needs `items`) stops after the page that
   * reaches it.
   */
  maxItems?: number | undefined;
}

/** The options of {@linkcode paginateItems}: those of `paginate()`, `items` required. */
export interface PaginateItemsOptions<T> extends PaginateOptions<T> {
  /** The items of a page, in order. */
  items: (response: HttpResponse) => readonly T[] | Promise<readonly T[]>;
}

/**
 * The pages of a listing, each one call of `client` (hooks, auth, retries,
 * redirects, middleware), read whole: the first is `url`, the next one the
 * target of the page's `Link` header's `rel="next"` (RFC 8288, resolved
 * against the page's URL), or what `options.next` returns. It ends when
 * there is no next page, at `maxPages` or `maxItems`, on `break`, and with
 * an exception: `HttpStatusException` for a 4xx or 5xx page (the response
 * is on it), `HttpClientException` for a next page fetched before (a loop),
 * the call's `signal` or the client's close. A page on another origin than
 * the first's goes without the credentials of the first. Nothing is sent
 * until the loop starts.
 *
 * @param client The client that sends each page.
 * @param url The first page's URL, relative or absolute.
 * @param options The first page's request and call options, `items`, `next`, `maxPages`, `maxItems`.
 * @returns The pages, in order.
 * @throws {TypeError} For a client that is not an `HttpClient`, or a bad option (a `maxPages`
 * that is not a positive integer, an `items` that is not a function…), before anything is sent.
 *
 * @example Follow the Link header's next pages
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import { paginate } from "@fetchline/fetchline/paginate";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
 *   const page = Number(new URL(request.url).searchParams.get("page") ?? 1);
 *   const link = page < 3 ? `</items?page=${page + 1}>; rel="next"` : "";
 *   return Response.json([page * 10, page * 10 + 1], { headers: { link } });
 * });
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * const pages = [];
 * for await (const page of paginate(client, "/items")) pages.push(page.json());
 * assert.deepEqual(pages, [[10, 11], [20, 21], [30, 31]]);
 * ```
 */
export function paginate<T = unknown>(
  client: HttpClient,
  url: string | URL,
  options: PaginateOptions<T> = {},
): AsyncGenerator<HttpResponse, void, undefined> {
  const pages = walk(client, url, options, false);
  return (async function* () {
    for await (const [response] of pages) yield response;
  })();
}

/**
 * The items of a listing's pages, as {@linkcode paginate} fetches them,
 * each page's from `options.items`; at most `maxItems`.
 *
 * @param client The client that sends each page.
 * @param url The first page's URL, relative or absolute.
 * @param options As for `paginate()`, with `items` required.
 * @returns The items, in order.
 * @throws {TypeError} For a client that is not an `HttpClient`, or a bad option, before
 * anything is sent.
 *
 * @example Read a cursor API's items
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import { paginateItems } from "@fetchline/fetchline/paginate";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
 *   const cursor = Number(new URL(request.url).searchParams.get("cursor") ?? 0);
 *   return Response.json({ items: [cursor, cursor + 1], next: cursor < 4 ? cursor + 2 : null });
 * });
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * type Page = { items: number[]; next: number | null };
 * const items = paginateItems(client, "/numbers", {
 *   items: (response) => response.json<Page>().items,
 *   next: (response) => {
 *     const { next } = response.json<Page>();
 *     return next === null ? undefined : { params: { cursor: next } };
 *   },
 * });
 * assert.deepEqual(await Array.fromAsync(items), [0, 1, 2, 3, 4, 5]);
 * ```
 */
export function paginateItems<T>(
  client: HttpClient,
  url: string | URL,
  options: PaginateItemsOptions<T>,
): AsyncGenerator<T, void, undefined> {
  const pages = walk(client, url, options, true);
  let left = options.maxItems ?? Infinity;
  return (async function* () {
    for await (const [, items] of pages) {
      for (const item of items) {
        if (left-- <= 0) return;
        yield item;
      }
    }
  })();
}

const NO_ITEMS: readonly never[] = Object.freeze([]);

/** Checks `options` now, and returns the pages with their items, fetched one by one as they are asked for. */
function walk<T>(
  client: HttpClient,
  url: string | URL,
  options: PaginateOptions<T>,
  itemsNeeded: boolean,
): AsyncGenerator<[HttpResponse, readonly T[]], void, undefined> {
  if (!(client instanceof HttpClient)) {
    throw new TypeError("Invalid client: expected an HttpClient");
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError("Invalid options: expected an object");
  }
  const { items, next = linkNext, maxPages, maxItems, method = "GET", ...rest } = options;
  if (items !== undefined || itemsNeeded) checkFunction("items", items);
  checkFunction("next", next);
  if (maxPages !== undefined) validatePositive("maxPages", maxPages);
  if (maxItems !== undefined) validatePositive("maxItems", maxItems);
  if (maxItems !== undefined && items === undefined) {
    throw new TypeError("Invalid maxItems: it counts what `items` returns, which is not given");
  }
  if (rest.stream) throw new TypeError("Invalid stream: pagination reads each page whole");
  const [init, firstCall] = splitRequestOptions(rest);
  const first = new HttpRequest(method, url, init);
  return (async function* () {
    let request = first;
    let call = firstCall;
    let origin: URL | undefined;
    const visited = new Set<string>();
    let counted = 0;
    for (let page = 1;; page++) {
      // Every page's credentials are the first page's: a page elsewhere goes without them.
      const options = origin === undefined ? call : { ...call, [CREDENTIALS_OF]: origin.href };
      const response = (await client.request(request, options)).raiseForStatus();
      const sent = response.request;
      origin ??= new URL(sent.url);
      visited.add(pageKey(request.method, appendParams(sent.url, sent.params)));
      visited.add(pageKey(request.method, response.url));
      const found = items === undefined ? NO_ITEMS : await items(response);
      if (!Array.isArray(found)) {
        throw new TypeError("Invalid items: expected the function to return an array");
      }
      counted += found.length;
      yield [response, found];
      if (page === maxPages || counted >= (maxItems ?? Infinity)) return;
      const wanted = await next(response, found);
      if (wanted === undefined || wanted === null) return;
      const previous = request.url;
      [request, call] = nextRequest(request, call, response, wanted);
      if (!hasBody(request)) {
        // A request with a body (a QUERY's cursor) may differ by its body alone: not checked.
        const url = request.url === previous ? sent.url : request.url;
        const key = pageKey(request.method, appendParams(url, request.params));
        if (visited.has(key)) {
          throw new HttpClientException(
            `Pagination loop: the next page was fetched before: ${
              describeCall({ method: request.method, url: key.slice(key.indexOf(" ") + 1) })
            }`,
            { request },
          );
        }
      }
    }
  })();
}

/** The default next page: the Link header's `rel="next"`, resolved against the page's URL. */
function linkNext(response: HttpResponse): string | undefined {
  return linkTarget(response.headers["link"], "next", response.url);
}

function checkFunction(name: string, value: unknown): void {
  if (typeof value !== "function") throw new TypeError(`Invalid ${name}: expected a function`);
}

function hasBody(request: HttpRequest): boolean {
  return request.body !== undefined || request.jsonData !== undefined ||
    request.data !== undefined || request.files !== undefined;
}

/** What tells two pages' requests apart: the method and the absolute URL, query included, fragment left out. */
function pageKey(method: string, url: string): string {
  const parsed = URL.parse(url);
  if (parsed !== null) parsed.hash = "";
  return `${method} ${parsed?.href ?? url}`;
}

/**
 * The request and call options of the page after `response`, as `wanted`
 * says ({@linkcode NextPageOptions}). A page on another origin than the
 * first's (or http after https) is sent without the credential headers and
 * `auth` the call gave, as a redirect's hop is; the client's own auth
 * follows its auth scope, as for any call.
 */
function nextRequest(
  request: HttpRequest,
  call: CallOptions,
  response: HttpResponse,
  wanted: Exclude<NextPage, undefined | null>,
): [HttpRequest, CallOptions] {
  const options: NextPageOptions = typeof wanted === "string" || wanted instanceof URL
    ? { url: wanted }
    : wanted;
  if (typeof options !== "object") {
    throw new TypeError("Invalid next: expected it to return a URL, options or undefined");
  }
  const { url, method, ...rest } = options;
  const [init, changes] = splitRequestOptions(rest);
  const fields: Partial<HttpRequestFields> = { ...init };
  if (method !== undefined) fields.method = method as HttpMethod;
  if (init.headers !== undefined) fields.headers = mergeHeaders(request.headers, init.headers);
  if (url !== undefined) {
    const target = URL.parse(url, response.url);
    if (target === null) {
      throw new TypeError(
        `Invalid next: the URL does not parse: ${describeCall(request, `${url}`)}`,
      );
    }
    fields.url = target.href;
    if (!("params" in init)) fields.params = undefined;
  } else if (init.params !== undefined) {
    fields.params = { ...request.params, ...init.params };
  }
  return [request.with(fields), { ...call, ...changes }];
}
