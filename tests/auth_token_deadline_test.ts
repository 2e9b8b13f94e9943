// A token fetch run for a call is bounded by that call's timeout, its
// signal and the client's close; abandoning one call's wait leaves the
// shared fetch to the others, and a late token sends nothing.

import assert from "node:assert/strict";
import {
  BaseAuthHook,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  type HttpRequest,
  TimeoutException,
  TokenAuthHook,
  type TokenFetchStep,
  TokenManager,
} from "../mod.ts";
import { TokenData } from "../config.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles } from "./helpers.ts";

/** A token step that waits for the test: `release(token)` resolves every fetch so far. */
function heldStep() {
  const waiting: ((token: TokenData) => void)[] = [];
  const state = { fetches: 0 };
  const step = {
    name: "held",
    fetch: () => {
      state.fetches++;
      return new Promise<TokenData>((resolve) => waiting.push(resolve));
    },
  };
  const release = (accessToken: string) => {
    for (const resolve of waiting.splice(0)) resolve(new TokenData({ accessToken }));
  };
  return { step, state, release };
}

/** A step that never returns. */
const neverStep = { name: "never", fetch: () => new Promise<TokenData>(() => {}) };

function tokenClient(server: FixtureServer, manager: TokenManager, timeout = 0.3): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(timeout)
      .withTokenAuth({ tokenManager: manager }).withRetry({ maxRetries: 0 }).build(),
  );
}

Deno.test("A token step that never returns fails the call with TimeoutException at the timeout", async () => {
  await using server = startFixtureServer();
  using client = tokenClient(server, new TokenManager([neverStep]));
  await rejectsWith(
    settles(client.get("/a")),
    TimeoutException,
    /^Request timed out after 0\.3 s: GET http:\/\/127\.0\.0\.1:\d+\/a$/,
  );
  await rejectsWith(settles(client.get("/b", { timeout: 1.1 })), TimeoutException, /after 1\.1 s/);
  assert.equal(server.requests.length, 0);
});

Deno.test("close() fails a call waiting for its token", async () => {
  await using server = startFixtureServer();
  using client = tokenClient(server, new TokenManager([neverStep]), 30);
  const call = client.get("/a");
  setTimeout(() => client.close(), 20);
  await rejectsWith(
    settles(call),
    HttpClientException,
    /^Client was closed during the request: GET /,
  );
  assert.equal(server.requests.length, 0);
});

Deno.test("The caller's signal aborts a call waiting for its token", async () => {
  await using server = startFixtureServer();
  using client = tokenClient(server, new TokenManager([neverStep]), 30);
  const controller = new AbortController();
  const call = client.get("/a", { signal: controller.signal });
  setTimeout(() => controller.abort(), 20);
  await rejectsWith(settles(call), HttpClientException, /^Request was aborted: GET /);
  await rejectsWith(
    settles(client.get("/b", { signal: AbortSignal.abort() })),
    HttpClientException,
    /^Request was aborted: GET /,
  );
});

Deno.test("A token that arrives after the timeout sends nothing for the abandoned call and serves the others", async () => {
  await using server = startFixtureServer();
  const { step, state, release } = heldStep();
  using client = tokenClient(server, new TokenManager([step]), 5);
  const abandoned = client.get("/abandoned", { timeout: 0.2 });
  const patient = client.get("/patient");
  await rejectsWith(settles(abandoned), TimeoutException, /after 0\.2 s/);
  release("late");
  const response = await settles(patient);
  assert.equal(
    response.json<{ headers: Record<string, string> }>().headers.authorization,
    "Bearer late",
  );
  assert.equal(state.fetches, 1, "one shared fetch");
  await client.get("/after");
  assert.deepEqual(server.requests.map((r) => r.path), ["/patient", "/after"]);
});

Deno.test("A refresh after a 401 that never returns is bounded by the timeout", async () => {
  await using server = startFixtureServer();
  server.route("/a", () => new Response("expired", { status: 401 }));
  let fetches = 0;
  const manager = new TokenManager([{
    name: "first-then-never",
    fetch: () =>
      ++fetches === 1
        ? Promise.resolve(new TokenData({ accessToken: "t-1" }))
        : new Promise<TokenData>(() => {}),
  }]);
  using client = tokenClient(server, manager);
  await rejectsWith(settles(client.get("/a")), TimeoutException, /after 0\.3 s/);
  assert.equal(fetches, 2);
  assert.equal(server.requests.length, 1, "not resent");
});

Deno.test("Applying the auth hook again on a redirect hop is bounded by the timeout", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  class StallingHook extends BaseAuthHook {
    beforeRequest(request: HttpRequest): Promise<HttpRequest> {
      if (request.url.startsWith(second.url)) return new Promise(() => {});
      return Promise.resolve(request.withHeaders({ "X-API-Key": "k" }));
    }
    getToken(): Promise<TokenData> {
      return Promise.resolve(new TokenData({ accessToken: "k" }));
    }
  }
  using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(first.url).withTimeout(0.3)
      .withAuthHook(new StallingHook()).withAuthOrigins([first.url, second.url])
      .withRetry({ maxRetries: 0 }).build(),
  );
  await rejectsWith(
    settles(client.get("/redirect/302", { params: { to: `${second.url}/landed` } })),
    TimeoutException,
    /after 0\.3 s/,
  );
  assert.equal(first.requests.length, 1);
  assert.equal(second.requests.length, 0);
});

Deno.test("A token fetched within the timeout leaves the call's timeout running for the exchange", async () => {
  await using server = startFixtureServer();
  const manager = new TokenManager([{
    name: "quick",
    fetch: () => Promise.resolve(new TokenData({ accessToken: "t" })),
  }]);
  using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(0.3)
      .withAuthHook(new TokenAuthHook(manager)).withRetry({ maxRetries: 0 }).build(),
  );
  assert.equal((await client.get("/a")).statusCode, 200);
  await rejectsWith(settles(client.get("/delay/2000")), TimeoutException, /after 0\.3 s/);
});

Deno.test("A token run still going after staleRunSeconds is not joined: the next call fetches anew", async () => {
  await using server = startFixtureServer();
  let fetches = 0;
  const hangsFirst: TokenFetchStep = {
    name: "hangs-first",
    fetch: () =>
      ++fetches === 1
        ? new Promise<TokenData>(() => {})
        : Promise.resolve(new TokenData({ accessToken: `t-${fetches}` })),
  };
  const manager = new TokenManager([hangsFirst], { staleRunSeconds: 0.1 });
  using client = tokenClient(server, manager, 0.3);
  await rejectsWith(settles(client.get("/a")), TimeoutException, /after 0\.3 s/);
  const response = await settles(client.get("/b"));
  assert.equal(response.statusCode, 200);
  assert.equal(server.last().headers["authorization"], "Bearer t-2");
  assert.equal(fetches, 2);
  assert.throws(() => new TokenManager([hangsFirst], { staleRunSeconds: -1 }), RangeError);
});
