// Where credentials may go: the auth hook's origins, the credential headers
// a redirect drops on leaving the origin, and the 401s that may cause a
// refresh. A second fixture server is a second origin (another port).

import assert from "node:assert/strict";
import {
  ApiKeyAuthHook,
  AuthorizationHook,
  HttpClient,
  HttpClientConfigBuilder,
  TokenAuthHook,
  TokenManager,
} from "../mod.ts";
import { TokenData } from "../config.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";

/** A path on `from` that redirects (302) to `path` on `to`. */
function redirectTo(from: FixtureServer, to: FixtureServer, path = "/landed"): string {
  return `${from.url}/redirect/302?to=${encodeURIComponent(to.url + path)}`;
}

/** A token manager that issues t-1, t-2, … and counts its fetches. */
function countingManager() {
  const state = { fetches: 0 };
  const manager = new TokenManager([{
    name: "counter",
    fetch: () => Promise.resolve(new TokenData({ accessToken: `t-${++state.fetches}` })),
  }]);
  return { manager, state };
}

Deno.test("With no base URL the auth hook runs for the call's own origin and never after a redirect to another", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  const { manager } = countingManager();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withTokenAuth({ tokenManager: manager }).build(),
  );
  const response = await client.get(redirectTo(first, second));
  assert.equal(response.statusCode, 200);
  assert.equal(first.last().headers["authorization"], "Bearer t-1");
  assert.equal(second.last().path, "/landed");
  assert.equal(second.last().headers["authorization"], undefined, "not sent to another origin");
  await client.get(`${second.url}/direct`);
  assert.equal(second.last().headers["authorization"], "Bearer t-1", "a call's own origin");
});

Deno.test("With no base URL withAuthOrigins is the whole list: a call's own origin is not added", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  await using third = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder()
      .withAuthHook(new ApiKeyAuthHook("k-1"))
      .withAuthOrigins([second.url])
      .build(),
  );
  await client.get(redirectTo(first, second));
  assert.equal(first.last().headers["x-api-key"], undefined, "a call's own origin, not named");
  assert.equal(second.last().headers["x-api-key"], "k-1", "named by withAuthOrigins");
  await client.get(redirectTo(first, third));
  assert.equal(third.last().headers["x-api-key"], undefined);
});

Deno.test("A redirect that leaves the origin drops the header of an AuthorizationHook", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  const hook = new AuthorizationHook(() => "tok-secret", { headerName: "X-Auth-Token" });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(first.url).withRequestHook(hook).build(),
  );
  await client.get(redirectTo(first, second), { headers: { "X-Plain": "kept" } });
  assert.equal(first.last().headers["x-auth-token"], "Bearer tok-secret");
  assert.equal(second.last().headers["x-auth-token"], undefined);
  assert.equal(second.last().headers["x-plain"], "kept");
  await client.get("/redirect/302?to=/same");
  assert.equal(first.last().path, "/same");
  assert.equal(first.last().headers["x-auth-token"], "Bearer tok-secret", "kept on the origin");
});

Deno.test("A redirect that leaves the origin drops an auth hook's custom header, whoever set it", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  const keyed = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(first.url)
      .withAuthHook(new ApiKeyAuthHook("k-hook", { headerName: "X-Custom-Key" })).build(),
  );
  // The request carries its own key: the hook adds nothing, the header is still a credential.
  await keyed.get(redirectTo(first, second), { headers: { "X-Custom-Key": "k-caller" } });
  keyed.close();
  assert.equal(first.last().headers["x-custom-key"], "k-caller");
  assert.equal(second.last().headers["x-custom-key"], undefined);
  const { manager } = countingManager();
  await using tokened = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(first.url)
      .withTokenAuth({ tokenManager: manager, authHeaderName: "X-Token" }).build(),
  );
  await tokened.get(redirectTo(first, second));
  assert.equal(first.last().headers["x-token"], "Bearer t-1");
  assert.equal(second.last().headers["x-token"], undefined);
});

Deno.test("A 401 from another origin reached by a redirect causes no refresh and no resend", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  second.route("/landed", () => new Response("who are you", { status: 401 }));
  const { manager, state } = countingManager();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(first.url)
      .withAuthHook(new TokenAuthHook(manager)).withRetry({ maxRetries: 0 }).build(),
  );
  const response = await client.get(redirectTo(first, second));
  assert.equal(response.statusCode, 401);
  assert.equal(state.fetches, 1, "no refresh");
  assert.equal(first.requests.length, 1, "no resend");
  assert.equal(second.requests.length, 1);
});

Deno.test("A 401 from an origin that received the credentials after a redirect still refreshes", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  second.route(
    "/landed",
    (request) =>
      request.headers.get("authorization") === "Bearer t-2"
        ? Response.json({ ok: true })
        : new Response("expired", { status: 401 }),
  );
  const { manager, state } = countingManager();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(first.url)
      .withAuthHook(new TokenAuthHook(manager)).withAuthOrigins([first.url, second.url])
      .withRetry({ maxRetries: 0 }).build(),
  );
  const response = await client.get(redirectTo(first, second));
  assert.equal(response.statusCode, 200);
  assert.equal(state.fetches, 2);
  assert.deepEqual(second.requests.map((r) => r.headers["authorization"]), [
    "Bearer t-1",
    "Bearer t-2",
  ]);
});

Deno.test("An absolute URL with an empty authority gets credentials by its own host, not by a URL seen before", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder()
      .withAuthHook(new ApiKeyAuthHook("k-1"))
      .withAuthOrigins([first.url])
      .build(),
  );
  // "http:///127.0.0.1:<port>/" is the URL "http://127.0.0.1:<port>/" once parsed.
  const emptyAuthority = (server: FixtureServer) => server.url.replace("//", "///");
  await client.get(`${emptyAuthority(first)}/named`);
  assert.equal(first.last().headers["x-api-key"], "k-1", "named by withAuthOrigins");
  await client.get(`${emptyAuthority(second)}/other`);
  assert.equal(second.last().path, "/other");
  assert.equal(second.last().headers["x-api-key"], undefined, "not sent to another origin");
});
