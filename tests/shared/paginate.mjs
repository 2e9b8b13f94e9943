// Pagination (API.md "Pagination, problem details and retries") on each
// runtime's transport: the Link header's rel="next" followed (relative and
// absolute targets, several links and rels, quoted parameters), a cursor
// from the body, maxPages and maxItems, a loop back to a visited page, and
// break. What reached the server is read from the fixture's record
// (routes/paginate.mjs). The rest (redirects, the cache's 304, the signal
// and close(), credentials on another origin, bad options) is in the Deno
// suite (tests/paginate_test.ts).

export default function ({ lib, fixture, assert }) {
  const run = () => crypto.randomUUID();
  /** Runs `body` with a client of the fixture, no retries. */
  async function withClient(body) {
    const http = new lib.HttpClient(
      new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withTimeout(10)
        .withRetry({ maxRetries: 0 }).build(),
    );
    try {
      return await body(http);
    } finally {
      http.close();
    }
  }
  async function calls(id) {
    return (await (await fetch(`${fixture.url}/paginate/stats?run=${id}`)).json()).count;
  }
  const items = (response) => response.json().items;
  const next = (response) => {
    const cursor = response.json().next;
    return cursor === null ? undefined : { params: { cursor } };
  };

  return {
    "paginate: follows the Link header's rel=next to the last page": () =>
      withClient(async (http) => {
        const id = run();
        const pages = [];
        for await (const page of lib.paginate(http, "/paginate/links", { params: { run: id } })) {
          pages.push(page.json());
        }
        assert.deepEqual(pages, [[1], [2], [3], [4]]);
        assert.equal(await calls(id), 4);
      }),
    "paginateItems: a cursor from the body, maxItems stops it": () =>
      withClient(async (http) => {
        const all = await Array.fromAsync(
          lib.paginateItems(http, "/paginate/cursor", { items, next }),
        );
        assert.deepEqual(all, [0, 1, 2, 3, 4, 5, 6, 7]);
        const four = lib.paginateItems(http, "/paginate/cursor", { items, next, maxItems: 4 });
        assert.deepEqual(await Array.fromAsync(four), [0, 1, 2, 3]);
      }),
    "paginate: maxPages and break end it, no page past them fetched": () =>
      withClient(async (http) => {
        const id = run();
        const two = lib.paginate(http, "/paginate/links", { params: { run: id }, maxPages: 2 });
        assert.equal((await Array.fromAsync(two)).length, 2);
        assert.equal(await calls(id), 2);
        for await (const _ of lib.paginate(http, "/paginate/links", { params: { run: id } })) break;
        assert.equal(await calls(id), 3);
      }),
    "paginate: a Link back to a visited page is an HttpClientException": () =>
      withClient(async (http) => {
        const id = run();
        const pages = lib.paginate(http, "/paginate/links", {
          params: { run: id, page: 1, loop: 1 },
          maxPages: 10,
        });
        await assert.rejects(
          Array.fromAsync(pages),
          lib.HttpClientException,
          /^Pagination loop: .*\/paginate\/links\?run=.*&page=1&loop=1$/,
        );
        assert.equal(await calls(id), 2);
      }),
  };
}
