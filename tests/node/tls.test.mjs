// withTls() and connection failures that name their cause, on the npm build
// under Node (an undici Agent): a private CA trusted beside Node's default
// roots (NODE_EXTRA_CA_CERTS included), a client certificate, the key
// masked in util.inspect(), and each cause against a real server.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { inspect, promisify } from "node:util";
import { ConnectionException, HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { makeTlsMaterial } from "./tls_material.mjs";
import { rejectsWith } from "./helpers.mjs";

const FAKE_KEY = "-----BEGIN PRIVATE KEY-----\nPRIVATE KEY s3cret\n-----END PRIVATE KEY-----\n";

/** A client with one attempt per call and `tls` when given, closed when `t` ends. */
function client(t, tls) {
  const builder = new HttpClientConfigBuilder().withTimeout(5).withRetry({ maxRetries: 0 });
  if (tls !== undefined) builder.withTls(tls);
  const created = new HttpClient(builder.build());
  t.after(() => created.close());
  return created;
}

/** Starts `server` on 127.0.0.1, closed when `t` ends; resolves to its port. */
async function listen(t, server) {
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections?.();
    return new Promise((resolve) => server.close(resolve));
  });
  return server.address().port;
}

async function httpsServer(t, cert, options = {}) {
  const { serverKey } = await makeTlsMaterial();
  const server = createHttpsServer({ cert, key: serverKey, ...options }, (request, response) => {
    response.end(String(request.socket.getPeerCertificate?.()?.subject?.CN ?? "ok"));
  });
  server.on("tlsClientError", () => {});
  return `https://127.0.0.1:${await listen(t, server)}/x`;
}

/** A raw listener that answers every request with `answer(socket)`. */
async function rawServer(t, answer) {
  const server = createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", () => answer(socket));
  });
  return `http://127.0.0.1:${await listen(t, server)}/x`;
}

async function assertCause(t, url, cause, tls) {
  const error = await rejectsWith(client(t, tls).get(url), ConnectionException, cause);
  assert.ok(error.message.endsWith(`): GET ${url}`), error.message);
  assert.ok(!error.message.includes("\n"));
  assert.ok(error.cause instanceof Error);
  return error;
}

test("withTls() trusts a private CA's server certificate", async (t) => {
  const { caCert, serverCert } = await makeTlsMaterial();
  const url = await httpsServer(t, serverCert);
  const response = await client(t, { caCerts: [caCert] }).get(url);
  assert.equal(response.statusCode, 200);
});

test("withTls() keeps Node's default CAs, NODE_EXTRA_CA_CERTS included, beside its own", async (t) => {
  const { caCert, serverCert, otherNameCert } = await makeTlsMaterial();
  const url = await httpsServer(t, serverCert);
  const dir = await mkdtemp(join(tmpdir(), "fetchline-ca-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "ca.pem"), caCert);
  // The client's own CA is another one: the server's is trusted only through Node's defaults.
  const code = `
    import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
    const config = new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).withTimeout(5)
      .withTls({ caCerts: [${JSON.stringify(otherNameCert)}] }).build();
    const client = new HttpClient(config);
    try {
      console.log((await client.get(${JSON.stringify(url)})).statusCode);
    } finally {
      client.close();
    }
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--input-type=module", "-e", code],
    {
      cwd: import.meta.dirname ?? new URL(".", import.meta.url).pathname,
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "ca.pem") },
      timeout: 20_000,
    },
  );
  assert.equal(stdout.trim(), "200");
});

test("withTls() sends the client certificate to a server that requires one", async (t) => {
  const { caCert, serverCert, clientCert, clientKey } = await makeTlsMaterial();
  const url = await httpsServer(t, serverCert, {
    ca: caCert,
    requestCert: true,
    rejectUnauthorized: true,
  });
  const response = await client(t, { caCerts: [caCert], cert: clientCert, key: clientKey })
    .get(url);
  assert.equal(response.text, "fetchline test client");
});

test("withTls() refuses bad input naming the field, and masks the key in util.inspect()", async () => {
  const { clientCert } = await makeTlsMaterial();
  assert.throws(
    () => new HttpClientConfigBuilder().withTls({ cert: clientCert, key: "s3cret" }),
    /^TypeError: Invalid tls\.key: expected a PEM private key/,
  );
  assert.throws(
    () => new HttpClientConfigBuilder().withTls({ caCerts: ["nope"] }),
    /^TypeError: Invalid tls\.caCerts\[0\]: expected a PEM certificate/,
  );
  const config = new HttpClientConfigBuilder().withTls({ cert: clientCert, key: FAKE_KEY }).build();
  const client = new HttpClient(config);
  client.close();
  for (const value of [config.tls, config, client]) {
    for (const text of [inspect(value, { depth: 10 }), JSON.stringify(value), String(value)]) {
      assert.ok(!text.includes("s3cret"), text);
    }
    assert.match(inspect(value, { depth: 10 }), /key: '\*\*\*'/);
  }
  assert.throws(
    () =>
      new HttpClientConfigBuilder().withTls({ cert: clientCert, key: FAKE_KEY }).withFetch(fetch)
        .build(),
    /^TypeError: Invalid tls: a custom fetch \(withFetch\) cannot apply withTls\(\)/,
  );
});

test("TLS failures name the certificate problem", async (t) => {
  const { caCert, serverCert, otherNameCert, expiredCert } = await makeTlsMaterial();
  await assertCause(
    t,
    await httpsServer(t, serverCert),
    /^Connection failed: TLS certificate not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE: /,
  );
  await assertCause(
    t,
    await httpsServer(t, otherNameCert),
    /^Connection failed: TLS certificate name mismatch \(/,
    { caCerts: [caCert] },
  );
  await assertCause(
    t,
    await httpsServer(t, expiredCert),
    /^Connection failed: TLS certificate expired \(CERT_HAS_EXPIRED: /,
    { caCerts: [caCert] },
  );
});

test("a client certificate the server required and did not get fails the connection", async (t) => {
  const { caCert, serverCert } = await makeTlsMaterial();
  const url = await httpsServer(t, serverCert, {
    ca: caCert,
    requestCert: true,
    rejectUnauthorized: true,
  });
  // Under TLS 1.3 the server refuses after the handshake: undici sees its close, not its alert.
  await assertCause(
    t,
    url,
    /^Connection failed: (TLS client certificate required|connection closed early) \(/,
    { caCerts: [caCert] },
  );
});

test("connection failures name refused, reset, closed early, host not found and not HTTP", async (t) => {
  const probe = createServer();
  const port = await new Promise((resolve) =>
    probe.listen(0, "127.0.0.1", () => resolve(probe.address().port))
  );
  await new Promise((resolve) => probe.close(resolve));
  await assertCause(
    t,
    `http://127.0.0.1:${port}/x`,
    /^Connection failed: connection refused \(connect ECONNREFUSED/,
  );
  await assertCause(
    t,
    await rawServer(t, (socket) => socket.resetAndDestroy()),
    /^Connection failed: connection reset \(/,
  );
  await assertCause(
    t,
    await rawServer(t, (socket) => socket.end()),
    /^Connection failed: connection closed early \(/,
  );
  await assertCause(
    t,
    await rawServer(t, (socket) => socket.end("HTTP/1.1 200 OK\r\nContent-Le")),
    /^Connection failed: connection closed early \(/,
  );
  await assertCause(
    t,
    "http://fetchline-test.invalid/x",
    /^Connection failed: host not found \(getaddrinfo ENOTFOUND/,
  );
  await assertCause(
    t,
    await rawServer(t, (socket) => socket.end("garbage, not HTTP\r\n\r\n")),
    /^Connection failed: malformed response \(/,
  );
});
