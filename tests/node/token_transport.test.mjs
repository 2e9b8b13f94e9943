// The token request of clientCredentialsStep, run by a client's
// TokenAuthHook, goes through that client's undici pool (a token endpoint
// whose CA only withTls trusts) and its logging, on the npm build.

import assert from "node:assert/strict";
import { createServer } from "node:https";
import { test } from "node:test";
import {
  clientCredentialsStep,
  HttpClient,
  HttpClientConfigBuilder,
  TokenManager,
} from "@fetchline/fetchline";
import { makeTlsMaterial } from "./tls_material.mjs";

const SECRET = "cl1ent-s3cret";

test("clientCredentialsStep run by a client's TokenAuthHook uses the client's TLS settings and logging", async (t) => {
  const { caCert, serverCert, serverKey } = await makeTlsMaterial();
  const seen = [];
  const server = createServer({ cert: serverCert, key: serverKey }, (request, response) => {
    seen.push([request.url, request.headers.authorization ?? ""]);
    request.resume();
    if (request.url === "/token") {
      response.setHeader("content-type", "application/json");
      return response.end(JSON.stringify({ access_token: "t0ken-1", expires_in: 3600 }));
    }
    const ok = request.headers.authorization === "Bearer t0ken-1";
    response.statusCode = ok ? 200 : 401;
    response.end(ok ? "api" : "no");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const url = `https://127.0.0.1:${server.address().port}`;
  const lines = [];
  const log = (message) => void lines.push(message);
  const manager = new TokenManager([
    clientCredentialsStep({ tokenUrl: `${url}/token`, clientId: "app", clientSecret: SECRET }),
  ]);
  const client = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(url)
      .withTls({ caCerts: [caCert] })
      .withLogging({ logger: { debug: log, info: log, warn: log, error: log }, logHeaders: true })
      .withTokenAuth({ tokenManager: manager })
      .build(),
  );
  t.after(() => client.close());
  const response = await client.get("/api");
  assert.equal(response.text, "api");
  assert.deepEqual(seen.map(([path]) => path), ["/token", "/api"]);
  assert.match(seen[0][1], /^Basic /, "the auth hook did not run on the token request");
  const logged = lines.join("\n");
  assert.match(logged, /\] HTTP POST \/token\n/);
  assert.ok(!logged.includes(SECRET) && !logged.includes("t0ken-1"), logged);
});
