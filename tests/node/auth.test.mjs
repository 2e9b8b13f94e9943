// The auth flow on the npm build under Node (undici transport): a token
// fetch bounded by the call's timeout and the client's close, credentials
// kept to their origin across redirects, token errors without secrets.
// Two instances of the shared server are two origins (two ports).

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AuthenticationException,
  AuthorizationHook,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
  TokenData,
  TokenManager,
} from "@fetchline/fetchline";
import { fixture, json } from "./server.mjs";
import { rejectsWith, settles } from "./helpers.mjs";

function client(t, configure) {
  const created = new HttpClient(
    configure(new HttpClientConfigBuilder().withRetry({ maxRetries: 0 })).build(),
  );
  t.after(() => created.close());
  return created;
}

/** Makes `/hop` on `server` answer with a 302 to `location`. */
function redirect(server, location) {
  server.route("/hop", (_req, res) => {
    res.writeHead(302, { location });
    res.end();
  });
}

/** A token manager whose one step never returns. */
function neverManager() {
  return new TokenManager([{ name: "never", fetch: () => new Promise(() => {}) }]);
}

test("a token step that never returns fails the call with TimeoutException at the timeout", async (t) => {
  const server = await fixture(t);
  const http = client(
    t,
    (b) =>
      b.withBaseUrl(server.url).withTimeout(0.3).withTokenAuth({ tokenManager: neverManager() }),
  );
  await rejectsWith(
    settles(http.get("/a")),
    TimeoutException,
    /^Request timed out after 0\.3 s: GET /,
  );
  await rejectsWith(settles(http.get("/b", { timeout: 1.1 })), TimeoutException, /after 1\.1 s/);
  assert.equal(server.requests.length, 0);
});

test("close() fails a call waiting for its token", async (t) => {
  const server = await fixture(t);
  const http = client(
    t,
    (b) => b.withBaseUrl(server.url).withTokenAuth({ tokenManager: neverManager() }),
  );
  const call = http.get("/a");
  setTimeout(() => http.close(), 20);
  await rejectsWith(
    settles(call),
    HttpClientException,
    /^Client was closed during the request: GET /,
  );
  assert.equal(server.requests.length, 0);
});

test("with no base URL the token is not sent after a redirect to another origin", async (t) => {
  const first = await fixture(t);
  const second = await fixture(t);
  redirect(first, `${second.url}/landed`);
  const manager = new TokenManager([{
    name: "fixed",
    fetch: () => Promise.resolve(new TokenData({ accessToken: "t-1" })),
  }]);
  const http = client(t, (b) => b.withTokenAuth({ tokenManager: manager }));
  assert.equal((await http.get(`${first.url}/hop`)).statusCode, 200);
  assert.equal(first.requests[0].headers.authorization, "Bearer t-1");
  assert.equal(second.requests[0].path, "/landed");
  assert.equal(second.requests[0].headers.authorization, undefined);
});

test("a redirect that leaves the origin drops an AuthorizationHook's custom header", async (t) => {
  const first = await fixture(t);
  const second = await fixture(t);
  redirect(first, `${second.url}/landed`);
  const hook = new AuthorizationHook(() => "tok-secret", { headerName: "X-Auth-Token" });
  const http = client(t, (b) => b.withBaseUrl(first.url).withRequestHook(hook));
  await http.get("/hop");
  assert.equal(first.requests[0].headers["x-auth-token"], "Bearer tok-secret");
  assert.equal(second.requests[0].headers["x-auth-token"], undefined);
});

test("a 401 from another origin reached by a redirect causes no refresh and no resend", async (t) => {
  const first = await fixture(t);
  const second = await fixture(t);
  redirect(first, `${second.url}/landed`);
  second.route("/landed", (_req, res) => json(res, 401, { error: "who are you" }));
  let fetches = 0;
  const manager = new TokenManager([{
    name: "counter",
    fetch: () => Promise.resolve(new TokenData({ accessToken: `t-${++fetches}` })),
  }]);
  const http = client(t, (b) => b.withBaseUrl(first.url).withTokenAuth({ tokenManager: manager }));
  assert.equal((await http.get("/hop")).statusCode, 401);
  assert.equal(fetches, 1);
  assert.equal(first.requests.length, 1);
});

test("a token step's error message never reaches the AuthenticationException", async () => {
  const secret = "s3cret-in-a-message";
  const cause = new Error(`invalid_client: client_secret=${secret}`);
  const manager = new TokenManager([{ name: "login", fetch: () => Promise.reject(cause) }]);
  await assert.rejects(manager.getToken(), (error) => {
    assert.equal(error.constructor, AuthenticationException);
    assert.equal(error.message, "Token step 'login' failed: it threw Error");
    assert.ok(!JSON.stringify(error).includes(secret));
    assert.equal(error.cause, cause);
    return true;
  });
});
