// Traffic control's concurrency() and dedupe() on the npm build under Node,
// against a node:http server that counts what reaches it and how much at
// once (tests/traffic_queue_test.ts has the rest).

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { concurrency, dedupe } from "@fetchline/fetchline/traffic";

/** A server answering each path with itself after `delayMs`, counting requests and the most at once. */
async function countingServer(t, delayMs) {
  const counts = { requests: 0, most: 0, now: 0 };
  const server = createServer((req, res) => {
    counts.requests++;
    counts.most = Math.max(counts.most, ++counts.now);
    setTimeout(() => {
      counts.now--;
      res.end(req.url);
    }, delayMs);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { counts, url: `http://127.0.0.1:${server.address().port}` };
}

function clientWith(t, url, middleware) {
  const client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(url).withTimeout(30).withRetry({ maxRetries: 0 })
      .withMiddleware(middleware).build(),
  );
  t.after(() => client.close());
  return client;
}

// The server answers after 10 ms: a round trip on Node takes longer than 1 ms, so at 1 ms
// the server saw 5 at once, the client in flight between its answers.
test("concurrency({ max: 8 }): 1,000 concurrent calls, never more than 8 at the server, all answered", async (t) => {
  const { counts, url } = await countingServer(t, 10);
  const limit = concurrency({ max: 8 });
  const client = clientWith(t, url, limit);
  const responses = await Promise.all(
    Array.from({ length: 1000 }, (_, index) => client.get(`/${index}`)),
  );
  responses.forEach((response, index) => assert.equal(response.text, `/${index}`));
  assert.equal(counts.requests, 1000);
  assert.equal(counts.most, 8);
  assert.deepEqual(limit.state(), { inFlight: 0, queued: 0, origins: {} });
});

test("dedupe(): 100 identical concurrent GETs make one request, each caller gets the body", async (t) => {
  const { counts, url } = await countingServer(t, 100);
  const shared = dedupe();
  const client = clientWith(t, url, shared);
  const responses = await Promise.all(Array.from({ length: 100 }, () => client.get("/report")));
  assert.equal(counts.requests, 1);
  responses[0].content[0] = 0;
  for (const response of responses.slice(1)) assert.equal(response.text, "/report");
  assert.deepEqual(shared.state(), { inFlight: 0, callers: 0, origins: {} });
});
