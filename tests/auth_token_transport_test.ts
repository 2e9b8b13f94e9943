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
