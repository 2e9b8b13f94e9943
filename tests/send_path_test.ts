// The send path's steps as a caller sees them: one timeout for an exchange
// and all its redirects (with or without an auth hook), a fresh one for a
// resend after a 401, and a response after redirects that names the call's
// request and counts its time from the first hop.

import assert from "node:assert/strict";
import {
  BaseAuthHook,
  HttpClient,
  HttpClientConfigBuilder,
  type HttpRequest,
  TimeoutException,
} from "../mod.ts";
import { TokenData } from "../config.ts";
import { rejectsWith } from "./helpers.ts";

/** How long the server takes before each answer, in milliseconds. */
const HOP_MS = 250;
/** Longer than one answer, shorter than two. */
const TIMEOUT_S = 0.4;

/**
 * A server whose every answer takes {@linkcode HOP_MS}: `/hops/<n>` redirects
 * with a 303 to `/hops/<n - 1>` down to `/hops/0`, which answers 200;
 * `/key` answers 401 unless `X-Key` is `k2`.
 */
function slowServer() {
  const received: { method: string; path: string; key: string | null }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const { pathname } = new URL(request.url);
    received.push({ method: request.method, path: pathname, key: request.headers.get("x-key") });
    await request.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, HOP_MS));
    const left = /^\/hops\/(\d+)$/.exec(pathname)?.[1];
    if (left !== undefined && left !== "0") {
      return new Response(null, {
        status: 303,
        headers: { location: `/hops/${Number(left) - 1}` },
      });
    }
    if (pathname === "/key" && request.headers.get("x-key") !== "k2") {
      return new Response("no", { status: 401 });
    }
    return new Response("landed");
  });
  return { server, received, url: `http://127.0.0.1:${server.addr.port}` };
}

/** Sends `X-Key: k<version>`; a refresh moves to the next version. */
class VersionedKeyHook extends BaseAuthHook {
  version = 1;
  beforeRequest(request: HttpRequest): HttpRequest {
    return request.withHeaders({ "X-Key": `k${this.version}` });
  }
  getToken(): Promise<TokenData> {
    return Promise.resolve(new TokenData({ accessToken: `k${this.version}` }));
  }
  override refreshAuth(): Promise<boolean> {
    this.version++;
    return Promise.resolve(true);
  }
}

function client(url: string, authHook?: BaseAuthHook): HttpClient {
  const builder = new HttpClientConfigBuilder().withBaseUrl(url).withTimeout(TIMEOUT_S)
    .withRetry({ maxRetries: 0 });
  return new HttpClient((authHook ? builder.withAuthHook(authHook) : builder).build());
}

Deno.test("HttpClient's timeout covers every hop of a redirect, not each hop anew", async () => {
  const { server, received, url } = slowServer();
  await using _ = server;
  using plain = client(url);
  await rejectsWith(plain.get("/hops/1"), TimeoutException, /after 0\.4 s: GET .*\/hops\/1/);
  assert.deepEqual(received.map((r) => r.path), ["/hops/1", "/hops/0"]);
});

Deno.test("With an auth hook, the hook and every hop of a redirect share one timeout", async () => {
  const { server, received, url } = slowServer();
  await using _ = server;
  using authed = client(url, new VersionedKeyHook());
  await rejectsWith(authed.get("/hops/1"), TimeoutException, /after 0\.4 s: GET .*\/hops\/1/);
  assert.deepEqual(received.map((r) => [r.path, r.key]), [["/hops/1", "k1"], ["/hops/0", "k1"]]);
});

Deno.test("A resend after a 401 gets a timeout of its own", async () => {
  const { server, received, url } = slowServer();
  await using _ = server;
  using authed = client(url, new VersionedKeyHook());
  const response = await authed.get("/key");
  assert.equal(response.statusCode, 200);
  assert.deepEqual(received.map((r) => r.key), ["k1", "k2"]);
});

Deno.test("A response after redirects names the call's request and counts from the first hop", async () => {
  const { server, url } = slowServer();
  await using _ = server;
  using slow = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(url).withTimeout(5).build(),
  );
  const response = await slow.post("/hops/1", { jsonData: { a: 1 } });
  assert.equal(response.statusCode, 200);
  assert.equal(response.url, `${url}/hops/0`);
  assert.equal(response.request.method, "POST", "the call's request, not the GET hop");
  assert.equal(response.request.url, `${url}/hops/1`);
  assert.ok(response.elapsedMs >= 1.5 * HOP_MS, `elapsedMs ${response.elapsedMs} spans both hops`);
});
