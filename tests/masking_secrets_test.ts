// Secrets: with every logging option on, the whole auth flow
// (token fetch, 401 and refresh, Basic, API key, credentials given per call)
// and its error paths (a failing token endpoint, a timeout, a dropped
// connection) leave no secret in any log line, error message, String(error)
// or console.log() of an error, its cause chain included.

import assert from "node:assert/strict";
import {
  ApiKeyAuthHook,
  AuthenticationException,
  AuthorizationHook,
  BasicAuthHook,
  clientCredentialsStep,
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  TimeoutException,
  TokenAuthHook,
  TokenManager,
} from "../mod.ts";
import type { AuthHookInterface } from "../interfaces.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { recordingLogger } from "./helpers.ts";

const CLIENT_SECRET = "cl1ent-s3cret";
const PASSWORD = "p4ssw0rd-s3cret";
const API_KEY = "ap1-k3y-s3cret";
const SESSION = "s3ssion-s3cret";
const CALLER_TOKEN = "c4ller-t0ken-s3cret";
const URL_PASSWORD = "url-p4ss-s3cret";
/** Every access token issued starts with this. */
const TOKEN = "acc3ss-t0ken-";
const REFRESH_TOKEN = "r3fresh-t0ken-s3cret";

/** The secrets, and the encodings in which one could leak. */
const SECRETS = [
  CLIENT_SECRET,
  PASSWORD,
  API_KEY,
  SESSION,
  CALLER_TOKEN,
  URL_PASSWORD,
  TOKEN,
  REFRESH_TOKEN,
  btoa(`app:${CLIENT_SECRET}`),
  btoa(`ada:${PASSWORD}`),
];

/** An identity provider and an API on the fixture, checking the credentials for real. */
function authServer(server: FixtureServer) {
  const valid = new Set<string>();
  let issued = 0;
  server.route("/oauth/token", async (request) => {
    const form = new URLSearchParams(await request.text());
    const inHeader =
      request.headers.get("authorization") === `Basic ${btoa(`app:${CLIENT_SECRET}`)}`;
    if (!inHeader && form.get("client_secret") !== CLIENT_SECRET) {
      return Response.json({ error: "invalid_client" }, { status: 401 });
    }
    const token = `${TOKEN}${++issued}`;
    valid.add(token);
    return Response.json({
      access_token: token,
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: REFRESH_TOKEN,
    });
  });
  server.route("/oauth/denied", () => Response.json({ error: "invalid_client" }, { status: 401 }));
  server.route("/api/me", (request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    return valid.has(token)
      ? Response.json({ name: "ada" }, { headers: { "set-cookie": `sid=${SESSION}` } })
      : new Response("token expired", { status: 401 });
  });
  server.route(
    "/basic",
    (request) =>
      request.headers.get("authorization") === `Basic ${btoa(`ada:${PASSWORD}`)}`
        ? new Response("welcome")
        : new Response("bad credentials", { status: 401 }),
  );
  server.route(
    "/keyed",
    (request) =>
      new Response(null, { status: request.headers.get("x-api-key") === API_KEY ? 204 : 403 }),
  );
  return { valid };
}

/** Logs and collects everything, with every logging option on. */
function observed() {
  const { logger, lines } = recordingLogger();
  const errors: unknown[] = [];
  const client = (baseUrl: string, auth?: AuthHookInterface, timeout = 5) => {
    const builder = new HttpClientConfigBuilder()
      .withBaseUrl(baseUrl)
      .withTimeout(timeout)
      .withRetry({ maxRetries: 1, backoff: 0.001 })
      .withLogging({ logger, logHeaders: true, logBody: true });
    if (auth !== undefined) builder.withAuthHook(auth);
    return new HttpClient(builder.build());
  };
  const failure = async (call: Promise<unknown>) => {
    const error = await call.then(() => assert.fail("expected a failure"), (error) => error);
    errors.push(error);
    return error;
  };
  return { lines, errors, client, failure };
}

/** Every text an error can be shown as: message, String(), console.log(), down the cause chain. */
function textsOf(error: unknown): string[] {
  const texts = [String(error), Deno.inspect(error, { depth: 10 })];
  for (let e = error; e instanceof Error; e = e.cause) texts.push(e.message, e.toString());
  return texts;
}

function assertNoSecret(lines: [string, string][], errors: unknown[]): void {
  const texts = [...lines.map(([, line]) => line), ...errors.flatMap(textsOf)];
  for (const secret of SECRETS) {
    const leak = texts.find((text) => text.includes(secret));
    assert.equal(leak, undefined, `${secret} leaked`);
  }
}

function tokenManager(tokenUrl: string, credentialsIn: "header" | "body" = "header", timeout = 5) {
  return new TokenManager([
    clientCredentialsStep({
      tokenUrl,
      clientId: "app",
      clientSecret: CLIENT_SECRET,
      credentialsIn,
      timeout,
    }),
  ]);
}

Deno.test("No log line or error of token, Basic and API-key auth shows a secret, with every logging option on", async () => {
  await using server = startFixtureServer();
  const { valid } = authServer(server);
  const { lines, errors, client, failure } = observed();
  const tokens = tokenManager(`${server.url}/oauth/token`);
  {
    await using api = client(server.url, new TokenAuthHook(tokens));
    assert.equal((await api.get("/api/me")).statusCode, 200);
    valid.clear();
    assert.equal((await api.get("/api/me")).statusCode, 200, "refreshed after the 401");
    await failure(api.get("/delay/3000", { timeout: 0.1 }));
  }
  {
    await using basic = client(server.url, new BasicAuthHook("ada", PASSWORD));
    assert.equal((await basic.get("/basic")).statusCode, 200);
    await using wrong = client(server.url, new BasicAuthHook("ada", `${PASSWORD}-wrong`));
    assert.equal((await wrong.get("/basic")).statusCode, 401);
  }
  {
    await using plain = client(server.url);
    assert.equal((await plain.get("/basic", { auth: ["ada", PASSWORD] })).statusCode, 200);
    const inUrl = server.url.replace("//", `//ada:${URL_PASSWORD}@`);
    assert.equal((await plain.get(`${inUrl}/basic`)).statusCode, 401);
    await plain.get("/api/me", { headers: { Authorization: `Bearer ${CALLER_TOKEN}` } });
  }
  {
    await using keyed = client(server.url, new ApiKeyAuthHook(API_KEY));
    assert.equal((await keyed.get("/keyed")).statusCode, 204);
    await using dropped = client(server.dropUrl, new ApiKeyAuthHook(API_KEY));
    await failure(dropped.get("/keyed"));
  }
  assert.deepEqual(errors.map((e) => e?.constructor), [TimeoutException, ConnectionException]);
  const all = lines.map(([, line]) => line).join("\n");
  for (
    const shown of [
      '"Authorization":"***"',
      '"set-cookie":"***"',
      "Response: 401",
      "Response Body: token expired",
      "Request failed (attempt 2/2): TimeoutException",
      "Request failed (attempt 2/2): ConnectionException",
    ]
  ) {
    assert.ok(all.includes(shown), `the logs show ${shown}`);
  }
  assertNoSecret(lines, errors);
});

Deno.test("A failing token endpoint shows no secret in logs or errors, however it fails and wherever the secret goes", async () => {
  await using server = startFixtureServer();
  authServer(server);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  const endpoints: [string, RegExp][] = [
    [`${server.url}/oauth/denied`, /failed: status 401 \(invalid_client\)$/],
    [`${server.url}/echo`, /failed: the response has no access_token \(status 200\)$/],
    [`http://127.0.0.1:${listener.addr.port}/oauth/token`, /failed: it threw ConnectionException$/],
    [`${server.url}/delay/3000`, /failed: it threw TimeoutException$/],
  ];
  const { lines, errors, client, failure } = observed();
  for (const credentialsIn of ["header", "body"] as const) {
    for (const [tokenUrl, message] of endpoints) {
      const tokens = tokenManager(tokenUrl, credentialsIn, 0.1);
      await using api = client(server.url, new TokenAuthHook(tokens));
      const error = await failure(api.get("/api/me"));
      assert.equal(error.constructor, AuthenticationException, String(error));
      assert.match(error.message, message);
    }
  }
  assert.equal(server.requests.filter((r) => r.path === "/api/me").length, 0);
  assert.ok(
    server.requests.some((r) => new TextDecoder().decode(r.body).includes(CLIENT_SECRET)),
    "the secret did go out in a body",
  );
  // Each call's failure is logged once; a token request that failed itself
  // (refused, timed out) is logged too, as it goes through the client's logging.
  const failed = lines.filter(([level]) => level === "error").map(([, line]) => line);
  const tokenRequests = failed.filter((line) =>
    /\(attempt 1\/1\): \w+Exception: .*: POST /.test(line)
  );
  assert.equal(tokenRequests.length, 4, failed.join("\n"));
  assert.equal(failed.length, errors.length + tokenRequests.length);
  const shown = errors.map((error) => Deno.inspect(error, { depth: 10 })).join("\n");
  assert.match(
    shown,
    /grant_type: "client_credentials",\s+client_id: "app",\s+client_secret: "\*\*\*"/,
  );
  assertNoSecret(lines, errors);
});

Deno.test("AuthorizationHook's token in a custom header is masked in logs once the header is named sensitive", async () => {
  await using server = startFixtureServer();
  const { logger, lines } = recordingLogger();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRequestHook(new AuthorizationHook(() => CALLER_TOKEN, { headerName: "X-Auth-Token" }))
    .withLogging({ logger, logHeaders: true, logBody: true, sensitiveKeys: ["x-auth-token"] })
    .build();
  await using client = new HttpClient(config);
  await client.get("/x");
  assert.ok(lines.some(([, line]) => line.includes('"X-Auth-Token":"***"')));
  assertNoSecret(lines, []);
});
