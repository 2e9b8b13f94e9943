import assert from "node:assert/strict";
import { ApiKeyAuthHook, HttpClient, HttpClientConfigBuilder, TokenManager } from "../mod.ts";
import { TokenData } from "../config.ts";
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

/** A client for `origin` whose API key (KEY-FOR-A) goes to that origin alone. */
function parentOf(origin: string): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(origin)
      .withAuthOrigins([origin])
      .withAuthHook(new ApiKeyAuthHook("KEY-FOR-A"))
      .withRetry({ maxRetries: 0 })
      .build(),
  );
}

Deno.test("a derived client's own auth hook starts a new auth scope: its base URL's origin, never the parent's list", async () => {
  await using api = startFixtureServer();
  await using other = startFixtureServer();
  await using parent = parentOf(api.url);
  const own = parent.extend((builder) =>
    builder.withBaseUrl(other.url).withAuthHook(new ApiKeyAuthHook("KEY-FOR-B"))
  );
  await own.get("/own");
  assert.equal(other.last().headers["x-api-key"], "KEY-FOR-B", "its own base URL");
  await own.get(`${api.url}/parent-origin`);
  assert.equal(api.last().path, "/parent-origin");
  assert.equal(api.last().headers["x-api-key"], undefined, "not sent to the parent's origin");
  // withTokenAuth is an auth hook of its own too.
  const manager = new TokenManager([{
    name: "b",
    fetch: () => Promise.resolve(new TokenData({ accessToken: "TOKEN-FOR-B" })),
  }]);
  const token = parent.extend((builder) =>
    builder.withBaseUrl(other.url).withTokenAuth({ tokenManager: manager })
  );
  await token.get("/token");
  assert.equal(other.last().headers["authorization"], "Bearer TOKEN-FOR-B");
  await token.get(`${api.url}/token-parent-origin`);
  assert.equal(api.last().headers["authorization"], undefined);
  assert.equal(api.last().headers["x-api-key"], undefined);
  // The parent keeps its own scope.
  await parent.get("/direct");
  assert.equal(api.last().headers["x-api-key"], "KEY-FOR-A");
});

Deno.test("a derived client's own auth hook goes to the origins its builder names, and only those", async () => {
  await using api = startFixtureServer();
  await using other = startFixtureServer();
  await using third = startFixtureServer();
  await using parent = parentOf(api.url);
  // Named before or after the hook, the derived builder's list is the list.
  const named = parent.extend((builder) =>
    builder.withBaseUrl(other.url).withAuthOrigins([third.url])
      .withAuthHook(new ApiKeyAuthHook("KEY-FOR-C"))
  );
  await named.get(`${third.url}/named`);
  assert.equal(third.last().headers["x-api-key"], "KEY-FOR-C");
  await named.get("/base");
  assert.equal(other.last().headers["x-api-key"], undefined, "not named");
  await named.get(`${api.url}/parent`);
  assert.equal(api.last().headers["x-api-key"], undefined, "the parent's list is not kept");
  // Without a base URL of its own, the new hook's scope is the inherited base URL's origin.
  const sameBase = parent.extend((builder) => builder.withAuthHook(new ApiKeyAuthHook("KEY-2")));
  await sameBase.get("/same");
  assert.equal(api.last().headers["x-api-key"], "KEY-2");
  assert.equal(sameBase.config.authOrigins, undefined);
});
