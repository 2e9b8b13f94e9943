// Cookies with httpbin: /cookies/set sets them on a redirect to /cookies,
// which echoes the Cookie header it received; /cookies/delete expires them
// on a redirect the same way. `deno task test:interop` runs this file.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "../../mod.ts";
import { startHttpbin } from "./httpbin_server.ts";

type Cookies = { cookies: Record<string, string> };

Deno.test("HttpClient keeps httpbin's cookies with withCookies()", async (t) => {
  await using httpbin = await startHttpbin();
  const config = () =>
    new HttpClientConfigBuilder().withBaseUrl(httpbin.url).withRetry({ maxRetries: 0 });
  await using client = new HttpClient(config().withCookies().build());

  await t.step(
    "/cookies/set stores two cookies on the redirect hop, sent to /cookies",
    async () => {
      const response = await client.get("/cookies/set", { params: { a: "1", b: "two words" } });
      assert.equal(response.url, `${httpbin.url}/cookies`);
      assert.deepEqual(response.json<Cookies>().cookies, { a: "1", b: "two words" });
    },
  );

  await t.step("/cookies receives them on a later call", async () => {
    assert.deepEqual((await client.get("/cookies")).json<Cookies>().cookies, {
      a: "1",
      b: "two words",
    });
  });

  await t.step("/cookies/delete expires one; the other stays", async () => {
    const response = await client.get("/cookies/delete", { params: { a: "" } });
    assert.deepEqual(response.json<Cookies>().cookies, { b: "two words" });
    assert.deepEqual((await client.get("/cookies")).json<Cookies>().cookies, { b: "two words" });
  });

  await t.step("headerValues() reads both Set-Cookie lines of one response apart", async () => {
    await using manual = new HttpClient(config().withMaxRedirects(0).build());
    const response = await manual.get("/cookies/set", { params: { x: "1", y: "2" } });
    assert.equal(response.statusCode, 302);
    const names = response.headerValues("set-cookie").map((line) => line.split("=")[0]);
    assert.deepEqual(names, ["x", "y"]);
  });

  await t.step("a client without withCookies() keeps none", async () => {
    await using plain = new HttpClient(config().build());
    const response = await plain.get("/cookies/set", { params: { c: "3" } });
    assert.deepEqual(response.json<Cookies>().cookies, {});
  });
});
