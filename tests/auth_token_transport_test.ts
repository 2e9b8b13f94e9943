// The token request of clientCredentialsStep, run by a client's
// TokenAuthHook, goes through that client's transport: its TLS settings
// (a token endpoint whose CA only withTls trusts), its logging (secrets
// masked), never its auth hook; a TokenManager used on its own still sends
// with a client of its own.

import assert from "node:assert/strict";
import {
  AuthenticationException,
  clientCredentialsStep,
  HttpClient,
  HttpClientConfigBuilder,
  type RequestContext,
  TokenManager,
} from "../mod.ts";
import { recordingLogger, rejectsWith } from "./helpers.ts";
import { makeTlsMaterial } from "./tls_material.ts";

const SECRET = "cl1ent-s3cret";

/**
 * An HTTPS server, its certificate from the test CA: a token endpoint that
 * numbers its tokens, and an API that takes only the second (so the first
 * call refreshes once).
 */
async function startTokenServer() {
  const { serverCert, serverKey } = await makeTlsMaterial();
  const seen: { path: string; authorization: string | null }[] = [];
  let issued = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: serverCert, key: serverKey, onListen() {} },
    async (request) => {
      const { pathname } = new URL(request.url);
      seen.push({ path: pathname, authorization: request.headers.get("authorization") });
      await request.body?.cancel();
      if (pathname === "/token") {
        const token = `t0ken-${++issued}`;
        return Response.json({ access_token: token, token_type: "Bearer", expires_in: 3600 });
      }
      const ok = request.headers.get("authorization") === "Bearer t0ken-2";
      return new Response(ok ? "api" : "no", { status: ok ? 200 : 401 });
    },
  );
  return { server, seen, url: `https://127.0.0.1:${server.addr.port}` };
}

function tokenStep(url: string) {
  return clientCredentialsStep({ tokenUrl: `${url}/token`, clientId: "app", clientSecret: SECRET });
}

Deno.test("clientCredentialsStep run by a client's TokenAuthHook uses the client's TLS settings and logging, on a refresh too", async () => {
  const { caCert } = await makeTlsMaterial();
  const { server, seen, url } = await startTokenServer();
  await using _ = server;
  const { logger, lines } = recordingLogger();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(url)
    .withTls({ caCerts: [caCert] })
    .withLogging({ logger, logHeaders: true })
    .withTokenAuth({ tokenManager: new TokenManager([tokenStep(url)]) })
    .build();
  await using client = new HttpClient(config);
  const response = await client.get("/api");
  assert.equal(response.text, "api");
  // The auth hook did not run on the token requests: they carry the client's Basic credentials.
  assert.deepEqual(seen.map(({ path }) => path), ["/token", "/api", "/token", "/api"]);
  assert.match(seen[0]!.authorization ?? "", /^Basic /);
  assert.match(seen[2]!.authorization ?? "", /^Basic /);
  const logged = lines.map(([, message]) => message).join("\n");
  assert.match(logged, /\] HTTP POST \/token\n/);
  assert.match(logged, /\] HTTP GET \/api\n/);
  assert.equal(logged.match(/\] HTTP POST \/token\n/g)?.length, 2);
  assert.ok(!logged.includes(SECRET) && !logged.includes("t0ken-"), logged);
});

Deno.test("clientCredentialsStep in a TokenManager used on its own sends with a client of its own", async () => {
  const { server, seen, url } = await startTokenServer();
  await using _ = server;
  const manager = new TokenManager([tokenStep(url)]);
  // Its own client has no private CA: the endpoint's certificate is not trusted.
  const error = await rejectsWith(
    manager.getToken(),
    AuthenticationException,
    /^Token step 'client_credentials' failed: it threw ConnectionException$/,
  );
  assert.match(String((error.cause as Error).message), /TLS certificate not trusted/);
  assert.deepEqual(seen, []);
});

Deno.test("clientCredentialsStep's token request neither sends nor stores the client's cookies", async () => {
  const seen: { path: string; cookie: string | null }[] = [];
  let issued = 0;
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const { pathname } = new URL(request.url);
      seen.push({ path: pathname, cookie: request.headers.get("cookie") });
      await request.body?.cancel();
      const headers = new Headers();
      if (pathname === "/token") {
        headers.append("set-cookie", "issuer=s1de; Path=/");
        const body = { access_token: `t0ken-${++issued}`, expires_in: 3600 };
        return Response.json(body, { headers });
      }
      if (pathname === "/login") headers.append("set-cookie", "sid=us3r-session; Path=/");
      const ok = request.headers.get("authorization") !== "Bearer t0ken-1";
      return new Response(ok ? "api" : "no", { status: ok ? 200 : 401, headers });
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(url)
    .withCookies()
    .withTokenAuth({ tokenManager: new TokenManager([tokenStep(url)]) })
    .build();
  await using client = new HttpClient(config);
  // The first token is refused after the login set its cookie: the refresh
  // sends a second token request while the jar holds the session.
  assert.equal((await client.post("/login")).text, "api");
  assert.equal((await client.get("/api")).text, "api");
  assert.deepEqual(seen.map(({ path }) => path), ["/token", "/login", "/token", "/login", "/api"]);
  // The user's session never reaches the token endpoint, nor the token endpoint's cookie the API.
  assert.deepEqual(seen.map(({ cookie }) => cookie), [
    null,
    null,
    null,
    "sid=us3r-session",
    "sid=us3r-session",
  ]);
});

Deno.test("A TokenManager shared by two clients: closing the one whose transport fetches the token does not fail the other's call", async () => {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let issued = 0;
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      await request.body?.cancel();
      if (new URL(request.url).pathname !== "/token") {
        return new Response(`api ${request.headers.get("authorization")}`);
      }
      // The first token request is held until its client has closed.
      if (++issued === 1) await held;
      return Response.json({ access_token: `t0ken-${issued}`, expires_in: 3600 });
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(url)
    .withRetry({ maxRetries: 0 })
    .withTokenAuth({ tokenManager: new TokenManager([tokenStep(url)]) })
    .build();
  using first = new HttpClient(config);
  await using second = new HttpClient(config);
  const ended = first.get("/first").then(() => "sent", (error: Error) => error.message);
  while (issued === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  // The second client's call joins the token run the first client's transport is making.
  const joined = second.get("/second");
  first.close();
  release();
  assert.match(await ended, /^Client was closed during the request: GET/);
  assert.equal((await joined).text, "api Bearer t0ken-2");
  // Another caller that comes once the first client has closed does not join its run either.
  assert.equal((await second.get("/again")).text, "api Bearer t0ken-2");
  assert.equal(issued, 2);
});

Deno.test("the token sender a client binds to a call's context is out of every view of the context", async () => {
  const { caCert } = await makeTlsMaterial();
  const { server, url } = await startTokenServer();
  await using _ = server;
  const contexts: RequestContext[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(url)
    .withTls({ caCerts: [caCert] })
    .withResponseHook({
      afterResponse(response, context) {
        contexts.push(context);
        return response;
      },
    })
    .withTokenAuth({ tokenManager: new TokenManager([tokenStep(url)]) })
    .build();
  await using client = new HttpClient(config);
  assert.equal((await client.get("/api")).text, "api");
  const context = contexts.at(-1)!;
  assert.deepEqual(Reflect.ownKeys(context), ["request", "attempt", "maxRetries", "metadata"]);
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(context))), [
    "request",
    "attempt",
    "maxRetries",
    "metadata",
  ]);
  assert.doesNotMatch(Deno.inspect(context, { showHidden: true }), /sender|token/i);
  assert.deepEqual(Object.keys({ ...context }), ["request", "attempt", "maxRetries", "metadata"]);
});
