// Pagination (API.md "Pagination, problem details and retries"): pages
// followed through Link headers and cursors against a real paginated server,
// the bounds, the loop, the bad options, and each page as a whole call
// (hooks, auth, retries, redirects, the cache). The parsing of Link headers
// is at the end.

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ApiKeyAuthHook,
  createClient,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  type HttpResponse,
  HttpStatusException,
} from "../mod.ts";
import { HttpCache, MemoryCacheStore } from "../cache.ts";
import { paginate, paginateItems } from "../paginate.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { linkTarget, parseLinks } from "../src/http/link.ts";

/** `/items?page=N` of `pages` pages, each with `[N]` and the Link header `link(N)` gives. */
function linkedPages(
  server: ReturnType<typeof startFixtureServer>,
  pages: number,
  link: (page: number) => string | string[],
  path = "/items",
) {
  server.route(path, (request) => {
    const page = Number(new URL(request.url).searchParams.get("page") ?? 1);
    const headers = new Headers({ "content-type": "application/json" });
    if (page < pages) { for (const value of [link(page)].flat()) headers.append("link", value); }
    return new Response(JSON.stringify([page]), { headers });
  });
}

async function bodies(pages: AsyncIterable<HttpResponse>): Promise<unknown[]> {
  const seen = [];
  for await (const page of pages) seen.push(page.json());
  return seen;
}

Deno.test("paginate: follows a relative Link rel=next, resolved against the page's URL", async () => {
  await using server = startFixtureServer();
  linkedPages(server, 3, (page) => `<items?page=${page + 1}>; rel="next"`, "/api/items");
  await using client = createClient(server.url);
  assert.deepEqual(await bodies(paginate(client, "/api/items")), [[1], [2], [3]]);
  assert.deepEqual(server.requests.map((r) => `${r.path}?${r.query}`), [
    "/api/items?",
    "/api/items?page=2",
    "/api/items?page=3",
  ]);
});

Deno.test("paginate: absolute links, unquoted and several rels, several links and Link headers", async () => {
  await using server = startFixtureServer();
  linkedPages(server, 4, (page) => [
    `<${server.url}/items?page=1>; rel="first", <${server.url}/items?page=9,x>; title="a, b; c"; rel=last`,
    page === 1
      ? `<${server.url}/items?page=2>; rel=next`
      : `<${server.url}/items?page=${
        page + 1
      }>; title="next; page, \\"quoted\\""; REL="Prefetch NEXT"`,
  ]);
  await using client = createClient(server.url);
  assert.deepEqual(await bodies(paginate(client, "/items")), [[1], [2], [3], [4]]);
});

Deno.test("paginate: a Link is resolved against the final URL after a redirect", async () => {
  await using server = startFixtureServer();
  server.route("/old", () => Response.redirect(`${server.url}/v2/list`, 301));
  linkedPages(server, 2, () => `<list?page=2>; rel="next"`, "/v2/list");
  await using client = createClient(server.url);
  assert.deepEqual(await bodies(paginate(client, "/old")), [[1], [2]]);
  assert.deepEqual(server.requests.map((r) => r.path), ["/old", "/v2/list", "/v2/list"]);
});

Deno.test("paginate: the first page's params, headers and method; a Link's URL replaces the params", async () => {
  await using server = startFixtureServer();
  linkedPages(server, 2, () => `</items?page=2&per_page=5>; rel="next"`);
  await using client = createClient(server.url);
  const pages = paginate(client, "/items", {
    params: { per_page: 5 },
    headers: { "X-Trace": "t1" },
  });
  assert.deepEqual(await bodies(pages), [[1], [2]]);
  assert.deepEqual(server.requests.map((r) => r.query), ["per_page=5", "page=2&per_page=5"]);
  assert.ok(server.requests.every((r) => r.headers["x-trace"] === "t1" && r.method === "GET"));
});

/** A cursor API: `{ items, next }`, three items a page, `total` items in all. */
function cursorApi(
  server: ReturnType<typeof startFixtureServer>,
  total: number,
  path = "/numbers",
) {
  server.route(path, (request) => {
    const cursor = Number(new URL(request.url).searchParams.get("cursor") ?? 0);
    const items = Array.from({ length: Math.min(3, total - cursor) }, (_, i) => cursor + i);
    return Response.json({ items, next: cursor + 3 < total ? String(cursor + 3) : null });
  });
}
type Page = { items: number[]; next: string | null };
const items = (response: HttpResponse) => response.json<Page>().items;
const cursor = (response: HttpResponse) => {
  const { next } = response.json<Page>();
  return next === null ? undefined : { params: { cursor: next } };
};

Deno.test("paginateItems: a cursor from the body, the next params merged over the first's", async () => {
  await using server = startFixtureServer();
  cursorApi(server, 8);
  await using client = createClient(server.url);
  const all = paginateItems(client, "/numbers", { params: { limit: 3 }, items, next: cursor });
  assert.deepEqual(await Array.fromAsync(all), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(server.requests.map((r) => r.query), [
    "limit=3",
    "limit=3&cursor=3",
    "limit=3&cursor=6",
  ]);
});

Deno.test("paginate: next gets the page's items; a URL it returns is resolved against the page", async () => {
  await using server = startFixtureServer();
  cursorApi(server, 6);
  cursorApi(server, 6, "/base/numbers");
  await using client = createClient(`${server.url}/base/`);
  const told: unknown[] = [];
  const pages = paginate(client, "/numbers", {
    params: { limit: 3 },
    items,
    next: (response, found) => {
      told.push(found);
      const { next } = response.json<Page>();
      return next === null ? null : `/numbers?cursor=${next}`;
    },
  });
  assert.equal((await Array.fromAsync(pages)).length, 2);
  assert.deepEqual(told, [[0, 1, 2], [3, 4, 5]]);
  assert.deepEqual(server.requests.map((r) => `${r.path}?${r.query}`), [
    "/base/numbers?limit=3",
    "/numbers?cursor=3",
  ]);
});

Deno.test("paginate: maxPages and maxItems bound it, and no page past them is fetched", async () => {
  await using server = startFixtureServer();
  cursorApi(server, 30);
  await using client = createClient(server.url);
  assert.equal(
    (await Array.fromAsync(paginate(client, "/numbers", { next: cursor, maxPages: 2 }))).length,
    2,
  );
  assert.equal(server.requests.length, 2);
  const five = paginateItems(client, "/numbers", { items, next: cursor, maxItems: 5 });
  assert.deepEqual(await Array.fromAsync(five), [0, 1, 2, 3, 4]);
  assert.equal(server.requests.length, 4);
  // paginate() stops after the page that reaches maxItems, yielding it whole.
  const pages = paginate(client, "/numbers", { items, next: cursor, maxItems: 4 });
  assert.deepEqual((await bodies(pages)).map((page) => (page as Page).items), [[0, 1, 2], [
    3,
    4,
    5,
  ]]);
  assert.equal(server.requests.length, 6);
});

Deno.test("paginate: a Link back to a visited page fails naming it, masked, without fetching it again", async () => {
  await using server = startFixtureServer();
  server.route("/loop", (request) => {
    const page = new URL(request.url).searchParams.get("page") ?? "1";
    const next = page === "1" ? "2" : "1";
    return Response.json([page], {
      headers: { link: `</loop?page=${next}&access_token=s3cret#top>; rel="next"` },
    });
  });
  await using client = createClient(server.url);
  const seen: unknown[] = [];
  await assert.rejects(
    async () => {
      for await (
        const page of paginate(client, "/loop?page=1&access_token=s3cret", { maxPages: 10 })
      ) {
        seen.push(page.json());
      }
    },
    (error: unknown) => {
      assert.ok(error instanceof HttpClientException);
      assert.match(
        error.message,
        /^Pagination loop: .*GET http:\/\/127\.0\.0\.1:\d+\/loop\?page=1&access_token=\*\*\*$/,
      );
      assert.doesNotMatch(JSON.stringify(error) + String(error), /s3cret/);
      return true;
    },
  );
  assert.deepEqual(seen, [["1"], ["2"]]);
  assert.equal(server.requests.length, 2);
});

Deno.test("paginate: a cursor that comes back is a loop; a body's cursor is not checked", async () => {
  await using server = startFixtureServer();
  server.route("/same", () => Response.json({ items: [1], next: "x" }));
  await using client = createClient(server.url);
  const next = () => ({ params: { cursor: "x" } });
  await assert.rejects(
    Array.fromAsync(paginate(client, "/same", { next, maxPages: 10 })),
    /Pagination loop/,
  );
  assert.equal(server.requests.length, 2);
  const query = paginate(client, "/same", {
    method: "QUERY",
    jsonData: { cursor: 0 },
    next: (_, __) => ({ jsonData: { cursor: 1 } }),
    maxPages: 3,
  });
  assert.equal((await Array.fromAsync(query)).length, 3);
  assert.deepEqual(
    server.requests.slice(2).map((r) => [r.method, new TextDecoder().decode(r.body)]),
    [
      ["QUERY", '{"cursor": 0}'],
      ["QUERY", '{"cursor": 1}'],
      ["QUERY", '{"cursor": 1}'],
    ],
  );
});

Deno.test("paginate: bad options are refused naming the field, before any request", async () => {
  await using server = startFixtureServer();
  await using client = createClient(server.url);
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ maxPages: 0 }, /^Invalid maxPages: expected a positive integer, got 0$/],
    [{ maxPages: 1.5 }, /^Invalid maxPages/],
    [{ maxPages: "3" }, /^Invalid maxPages/],
    [{ maxItems: -1, items }, /^Invalid maxItems/],
    [{ maxItems: 3 }, /^Invalid maxItems: it counts what `items` returns/],
    [{ items: [] }, /^Invalid items: expected a function$/],
    [{ next: "/page2" }, /^Invalid next: expected a function$/],
    [{ stream: true }, /^Invalid stream: pagination reads each page whole$/],
    [{ method: "FETCH" }, /^Invalid method/],
    [{ maxPage: 3 }, /^Invalid options: unknown key "maxPage"/],
  ];
  for (const [options, message] of bad) {
    assert.throws(() => paginate(client, "/items", options), (error: unknown) => {
      assert.ok(error instanceof TypeError || error instanceof RangeError, String(error));
      assert.match((error as Error).message, message);
      return true;
    });
  }
  assert.throws(() => paginateItems(client, "/items", {} as never), /^TypeError: Invalid items/);
  assert.throws(() => paginate(client, "/items", null as never), /Invalid options/);
  // The client comes first: something else in its place is named, before anything is sent.
  const notClient = { request: () => client.request(new HttpRequest("GET", server.url)) };
  for (const other of [notClient, null, server.url]) {
    for (const walk of [paginate, paginateItems]) {
      assert.throws(
        () => walk(other as never, "/items", { items }),
        /^TypeError: Invalid client: expected an HttpClient$/,
      );
    }
  }
  assert.equal(server.requests.length, 0);
});

Deno.test("paginate: what items and next return is checked", async () => {
  await using server = startFixtureServer();
  cursorApi(server, 6);
  await using client = createClient(server.url);
  await assert.rejects(
    Array.fromAsync(paginateItems(client, "/numbers", { items: (r) => r.json() as never })),
    /^TypeError: Invalid items: expected the function to return an array$/,
  );
  await assert.rejects(
    Array.fromAsync(paginate(client, "/numbers", { next: () => 42 as never })),
    /^TypeError: Invalid next: expected it to return a URL, options or undefined$/,
  );
  await assert.rejects(
    Array.fromAsync(paginate(client, "/numbers", { next: () => ({ bdy: "x" }) as never })),
    /Invalid options: unknown key "bdy"/,
  );
});

Deno.test("paginate: a 4xx or 5xx page ends it with HttpStatusException carrying the page", async () => {
  await using server = startFixtureServer();
  server.route(
    "/gone",
    (request) =>
      new URL(request.url).searchParams.has("page")
        ? Response.json({ message: "gone" }, { status: 410 })
        : Response.json([1], { headers: { link: '</gone?page=2>; rel="next"' } }),
  );
  await using client = createClient(server.url);
  const seen: unknown[] = [];
  await assert.rejects(
    async () => {
      for await (const page of paginate(client, "/gone")) seen.push(page.json());
    },
    (error: unknown) => error instanceof HttpStatusException && error.response.statusCode === 410,
  );
  assert.deepEqual(seen, [[1]]);
});

Deno.test("paginate: break ends it at once; nothing more is fetched", async () => {
  await using server = startFixtureServer();
  linkedPages(server, 100, (page) => `</items?page=${page + 1}>; rel="next"`);
  await using client = createClient(server.url);
  const pages = paginate(client, "/items");
  assert.equal(server.requests.length, 0);
  for await (const page of pages) {
    if ((page.json() as number[])[0] === 2) break;
  }
  assert.equal(server.requests.length, 2);
  assert.deepEqual(await pages.next(), { done: true, value: undefined });
});

Deno.test("paginate: the call's signal and the client's close end it with the usual exception", async () => {
  await using server = startFixtureServer();
  linkedPages(server, 100, (page) => `</items?page=${page + 1}>; rel="next"`);
  server.route("/slow", async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return Response.json([1], {
      headers: { link: `<${new URL(request.url).pathname}?x=${Math.random()}>; rel=next` },
    });
  });
  await using client = createClient(server.url);
  const controller = new AbortController();
  await assert.rejects(
    async () => {
      for await (const page of paginate(client, "/items", { signal: controller.signal })) {
        if ((page.json() as number[])[0] === 2) controller.abort(new Error("enough"));
      }
    },
    (error: unknown) => error instanceof HttpClientException && /abort/i.test(error.message),
  );
  assert.equal(server.requests.length, 2);
  // Aborted while a page is in flight.
  const during = new AbortController();
  setTimeout(() => during.abort(), 20);
  await assert.rejects(
    Array.fromAsync(paginate(client, "/slow", { signal: during.signal })),
    HttpClientException,
  );
  const closing = createClient(server.url);
  await assert.rejects(
    async () => {
      for await (const _ of paginate(closing, "/items")) closing.close();
    },
    (error: unknown) => error instanceof HttpClientException && /closed/i.test(error.message),
  );
});

Deno.test("paginate: each page is a whole call: hooks, auth, retries", async () => {
  await using server = startFixtureServer();
  const failed = new Set<string>();
  server.route("/flaky", (request) => {
    const page = Number(new URL(request.url).searchParams.get("page") ?? 1);
    // Each page fails once with a 503 before it is served.
    if (!failed.has(String(page))) {
      failed.add(String(page));
      return new Response("busy", { status: 503, headers: { "retry-after": "0" } });
    }
    const link = page < 3 ? `</flaky?page=${page + 1}>; rel="next"` : "";
    return Response.json([page], { headers: { link } });
  });
  let hooked = 0;
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url)
      .withRetry({ maxRetries: 1, sleep: () => Promise.resolve() })
      .withAuthHook(new ApiKeyAuthHook("k-1"))
      .withRequestHook({ beforeRequest: (request) => (hooked++, request) })
      .build(),
  );
  assert.deepEqual(await bodies(paginate(client, "/flaky")), [[1], [2], [3]]);
  assert.equal(server.requests.length, 6);
  assert.ok(server.requests.every((r) => r.headers["x-api-key"] === "k-1"));
  assert.ok(hooked >= 3);
});

Deno.test("paginate: a page revalidated by the cache (304) still carries its stored Link", async () => {
  await using server = startFixtureServer();
  server.route("/cached", (request) => {
    const page = new URL(request.url).searchParams.get("page") ?? "1";
    const etag = `"p${page}"`;
    if (request.headers.get("if-none-match") === etag) {
      return new Response(null, { status: 304, headers: { etag } });
    }
    const headers: Record<string, string> = { etag, "cache-control": "no-cache" };
    if (page === "1") headers.link = '</cached?page=2>; rel="next"';
    return Response.json([page], { headers });
  });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withCache(
      new HttpCache({ store: new MemoryCacheStore() }),
    ).build(),
  );
  assert.deepEqual(await bodies(paginate(client, "/cached")), [["1"], ["2"]]);
  assert.deepEqual(await bodies(paginate(client, "/cached")), [["1"], ["2"]]);
  assert.deepEqual(server.requests.map((r) => r.headers["if-none-match"] ?? null), [
    null,
    null,
    '"p1"',
    '"p2"',
  ]);
});

Deno.test("paginate: a next page on another origin is sent without the call's credentials", async () => {
  await using first = startFixtureServer();
  await using other = startFixtureServer();
  linkedPages(first, 2, () => `<${other.url}/items?page=2>; rel="next"`);
  linkedPages(other, 3, (page) => `</items?page=${page + 1}>; rel="next"`);
  await using client = createClient(first.url);
  const pages = paginate(client, "/items", {
    headers: { Authorization: "Bearer t0ken", "X-Trace": "t" },
    auth: ["ada", "pw"],
  });
  assert.deepEqual(await bodies(pages), [[1], [2], [3]]);
  assert.equal(first.requests[0]?.headers["authorization"], "Bearer t0ken");
  for (const request of other.requests) {
    assert.equal(request.headers["authorization"], undefined);
    assert.equal(request.headers["x-trace"], "t");
  }
});

// The Link header's parsing (RFC 8288).

Deno.test("Link parsing: targets, quoted and unquoted values, commas and semicolons inside", () => {
  assert.deepEqual(
    parseLinks(
      '<https://h/a,b;c>; rel="next last"; title="x, y; \\"z\\""; Rel=ignored, </p2> ;rel=prev ; hreflang = en,<x>;novalue',
    ).map(({ target, params }) => [target, { ...params }]),
    [
      ["https://h/a,b;c", { rel: "next last", title: 'x, y; "z"' }],
      ["/p2", { rel: "prev", hreflang: "en" }],
      ["x", { novalue: "" }],
    ],
  );
  assert.deepEqual(parseLinks(""), []);
  assert.deepEqual(parseLinks("garbage, <ok>; rel=next").map((link) => link.target), ["ok"]);
  assert.deepEqual(parseLinks("<unclosed; rel=next"), []);
});

Deno.test("Link parsing: rel=next among several values and links, any case, resolved", () => {
  const base = "http://127.0.0.1/v1/items?page=2";
  assert.equal(
    linkTarget('<?page=3>; rel="Prefetch NEXT"', "next", base),
    "http://127.0.0.1/v1/items?page=3",
  );
  assert.equal(
    linkTarget('<../x>; rel="nextpage", <y>; rel=next', "next", base),
    "http://127.0.0.1/v1/y",
  );
  assert.equal(linkTarget('<a>; rel="prev"', "next", base), undefined);
  assert.equal(linkTarget(undefined, "next", base), undefined);
  assert.equal(
    linkTarget("<http://[bad>; rel=next, <ok>; rel=next", "next", base),
    "http://127.0.0.1/v1/ok",
  );
});

Deno.test("Link parsing: any list of links written out parses back to the same targets and rels", () => {
  const target = fc.stringMatching(/^[A-Za-z0-9/?=&.,;:_-]{0,20}$/);
  const relValue = fc.array(fc.constantFrom("next", "prev", "last", "first", "NeXt"), {
    minLength: 1,
    maxLength: 3,
  });
  const title = fc.string({ maxLength: 12 });
  fc.assert(
    fc.property(
      fc.array(fc.record({ target, rel: relValue, title, quoteRel: fc.boolean() }), {
        maxLength: 5,
      }),
      (links) => {
        const header = links.map(({ target, rel, title, quoteRel }) => {
          const relText = quoteRel || rel.length > 1 ? `"${rel.join(" ")}"` : rel.join(" ");
          const titleText = `"${title.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
          return `<${target}>; title=${titleText}; rel=${relText}`;
        }).join(", ");
        const parsed = parseLinks(header);
        assert.deepEqual(
          parsed.map(({ target, params }) => [target, params.rel, params.title]),
          links.map(({ target, rel, title }) => [target, rel.join(" "), title]),
        );
      },
    ),
    { numRuns: 300 },
  );
});
