import assert from "node:assert/strict";
import { ApiKeyAuthHook, HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";

function apiClient(baseUrl: string): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(baseUrl)
      .withAuthHook(new ApiKeyAuthHook("k-parent"))
      .withRetry({ maxRetries: 0 })
      .build(),
  );
}

Deno.test("a derived client on another origin does not send the parent's credentials there", async () => {
  await using api = startFixtureServer();
  await using other = startFixtureServer();
  await using parent = apiClient(api.url);
  const moved = parent.extend((builder) => builder.withBaseUrl(other.url));
  await moved.get("/hook");
  assert.equal(other.last().headers["x-api-key"], undefined);
  // The parent's origin still gets them, through the derived client too.
  await moved.get(`${api.url}/through-derived`);
  assert.equal(api.last().headers["x-api-key"], "k-parent");
  await parent.get("/direct");
  assert.equal(api.last().headers["x-api-key"], "k-parent");
});

Deno.test("a derived client sends the parent's credentials to another origin when it names it, or with a hook of its own", async () => {
  await using api = startFixtureServer();
  await using other = startFixtureServer();
  await using parent = apiClient(api.url);
  const named = parent.extend((builder) =>
    builder.withBaseUrl(other.url).withAuthOrigins([other.url])
  );
  await named.get("/named");
  assert.equal(other.last().headers["x-api-key"], "k-parent");
  const own = parent.extend((builder) =>
    builder.withBaseUrl(other.url).withAuthHook(new ApiKeyAuthHook("k-own"))
  );
  await own.get("/own");
  assert.equal(other.last().headers["x-api-key"], "k-own");
  // Another path on the same origin keeps the parent's scope as it was.
  const samePlace = parent.extend((builder) => builder.withBaseUrl(`${api.url}/v2/`));
  await samePlace.get("items");
  assert.equal(api.last().headers["x-api-key"], "k-parent");
  assert.equal(samePlace.config.authOrigins, undefined);
});
