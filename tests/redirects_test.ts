import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, HttpClientException } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, singleAttemptClient } from "./helpers.ts";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("HttpClient follows 301, 302 and 303 as GET without a body", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  for (const status of [301, 302, 303]) {
    const response = await client.post(`/redirect/${status}`, {
      params: { to: "/landed" },
      jsonData: { a: 1 },
      headers: { "X-Keep": "k" },
    });
    const landed = server.last();
    assert.deepEqual(
      [landed.method, landed.path, landed.body.length],
      ["GET", "/landed", 0],
      `${status}`,
    );
    assert.equal(landed.headers["content-type"], undefined);
    assert.equal(landed.headers["x-keep"], "k");
    assert.equal(response.url, `${server.url}/landed`);
    assert.equal(response.request.method, "POST");
  }
});

Deno.test("HttpClient follows 307 and 308 keeping the method and body", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  for (const status of [307, 308]) {
    const response = await client.put(`/redirect/${status}`, {
      params: { to: "/kept" },
      jsonData: { b: 2 },
    });
    const landed = server.last();
    assert.deepEqual([landed.method, landed.path, decode(landed.body)], [
      "PUT",
      "/kept",
      '{"b": 2}',
    ]);
    assert.equal(landed.headers["content-type"], "application/json");
    assert.equal(response.url, `${server.url}/kept`);
  }
});

Deno.test("HttpClient follows up to 20 redirects and fails past the limit", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const response = await client.get("/redirect-chain/20");
  assert.equal(response.statusCode, 200);
  assert.equal(response.url, `${server.url}/redirect-chain/0`);
  assert.equal(server.requests.length, 21);
  await rejectsWith(
    client.get("/redirect-chain/21"),
    HttpClientException,
    /Too many redirects \(more than 20\)/,
  );
  await rejectsWith(client.get("/redirect-loop"), HttpClientException, /Too many redirects/);
});

Deno.test("HttpClient returns the 3xx response when redirects are off", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder().withBaseUrl(server.url).withMaxRedirects(0).build();
  await using client = new HttpClient(config);
  const response = await client.get("/redirect/302", { params: { to: "/x" } });
  assert.equal(response.statusCode, 302);
  assert.equal(response.header("location"), "/x");
  assert.equal(server.requests.length, 1);
});

Deno.test("HttpClient drops credentials on a redirect to another origin", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  await using client = singleAttemptClient(first.url);
  await client.get("/redirect/302", {
    params: { to: `${second.url}/other` },
    headers: {
      Authorization: "Bearer secret",
      Cookie: "a=b",
      "Proxy-Authorization": "p",
      "X-Plain": "1",
    },
  });
  const landed = second.last();
  assert.equal(landed.headers["authorization"], undefined);
  assert.equal(landed.headers["cookie"], undefined);
  assert.equal(landed.headers["proxy-authorization"], undefined);
  assert.equal(landed.headers["x-plain"], "1");
  await client.get("/redirect/307", { params: { to: `${second.url}/other` }, auth: ["u", "p"] });
  assert.equal(second.last().headers["authorization"], undefined);
  await client.get("/redirect/302", {
    params: { to: "/same" },
    headers: { Authorization: "Bearer kept" },
  });
  assert.equal(first.last().headers["authorization"], "Bearer kept");
});

Deno.test("HttpClient follows a 301 keeping PUT, and turns PUT into GET on 302 and 303", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.put("/redirect/301", { params: { to: "/kept" }, jsonData: { a: 1 } });
  assert.deepEqual([server.last().method, decode(server.last().body)], ["PUT", '{"a": 1}']);
  for (const status of [302, 303]) {
    await client.put(`/redirect/${status}`, { params: { to: "/changed" }, jsonData: { a: 1 } });
    assert.deepEqual([server.last().method, server.last().body.length], ["GET", 0], `${status}`);
  }
  await client.head("/redirect/303", { params: { to: "/head" } });
  assert.equal(server.last().method, "HEAD");
});

Deno.test("HttpClient keeps QUERY and its body on 301, 302, 307 and 308, and turns it into GET on 303", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  for (const status of [301, 302, 307, 308]) {
    const response = await client.query(`/redirect/${status}`, {
      params: { to: "/kept" },
      jsonData: { q: 1 },
    });
    const landed = server.last();
    assert.deepEqual(
      [landed.method, landed.path, decode(landed.body)],
      ["QUERY", "/kept", '{"q": 1}'],
      `${status}`,
    );
    assert.equal(landed.headers["content-type"], "application/json", `${status}`);
    assert.equal(response.url, `${server.url}/kept`);
  }
  const response = await client.query("/redirect/303", {
    params: { to: "/results" },
    jsonData: { q: 1 },
  });
  const landed = server.last();
  assert.deepEqual([landed.method, landed.path, landed.body.length], ["GET", "/results", 0]);
  assert.equal(landed.headers["content-type"], undefined);
  assert.equal(response.request.method, "QUERY");
});
