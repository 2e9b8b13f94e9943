// The HAR recorder and MockTransport.fromHar in the npm build on Node: a
// recorded session validates against the HAR 1.2 schema with no secret in
// its text, replays with the same bytes, and a Chromium recording
// (tests/fixtures/chromium.har) replays (tests/har_test.ts has the rest).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import test from "node:test";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { HarRecorder } from "@fetchline/fetchline/har";
import { MockTransport } from "@fetchline/fetchline/testing";
import { harErrors } from "./har_schema.mjs";

/** Runs `body` with a client built by `builder`, closed at its end (Node 22 has no `await using`). */
async function withClient(builder, body) {
  const http = new HttpClient(builder.build());
  try {
    return await body(http);
  } finally {
    await http.close();
  }
}

test("a recorded session validates, holds no secret, and replays the same bytes", async () => {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json", "set-cookie": "sid=ck-SECRET" });
    res.end(JSON.stringify({ path: req.url.split("?")[0] }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const recorder = new HarRecorder();
  const bodies = [];
  try {
    await withClient(
      new HttpClientConfigBuilder().withBaseUrl(url).withMiddleware(recorder),
      async (http) => {
        const headers = { Authorization: "Bearer t-SECRET" };
        bodies.push((await http.get("/a?token=q-SECRET", { headers })).content);
        bodies.push((await http.post("/b", { jsonData: { password: "p-SECRET" } })).content);
      },
    );
  } finally {
    server.close();
  }
  const har = recorder.toHar();
  assert.deepEqual(harErrors(har), []);
  assert.doesNotMatch(JSON.stringify(har), /SECRET/);
  const replay = new HttpClientConfigBuilder().withBaseUrl(url)
    .withFetch(MockTransport.fromHar(har).fetch);
  await withClient(replay, async (http) => {
    assert.deepEqual((await http.get("/a?token=other")).content, bodies[0]);
    assert.deepEqual((await http.post("/b", { jsonData: { password: "x" } })).content, bodies[1]);
  });
});

test("a HAR exported from Chromium's DevTools protocol replays through fromHar", async () => {
  const har = JSON.parse(readFileSync(new URL("./fixtures/chromium.har", import.meta.url), "utf8"));
  const origin = new URL(har.log.entries[0].request.url).origin;
  const replay = new HttpClientConfigBuilder().withBaseUrl(origin)
    .withFetch(MockTransport.fromHar(har).fetch);
  await withClient(replay, async (http) => {
    assert.deepEqual((await http.get("/api/items?page=2")).json(), { items: [1, 2, 3], page: 2 });
    assert.equal((await http.get("/text")).text, "Gzipped text, ".repeat(40));
    assert.deepEqual((await http.get("/moved")).json(), { items: [1, 2, 3], page: 2 });
  });
});
