// withTls(): a private CA trusted beside the system's roots, a client
// certificate sent to a server that requires one, bad input refused with a
// TypeError naming the field (never quoting the key), the key masked in
// every view, and settings a transport cannot apply refused at build().

import assert from "node:assert/strict";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { HttpClient, HttpClientConfigBuilder, type TlsOptions } from "../mod.ts";
import { makeTlsMaterial } from "./tls_material.ts";

const KEY_TEXT = "PRIVATE KEY s3cret";
const FAKE_KEY = `-----BEGIN PRIVATE KEY-----\n${KEY_TEXT}\n-----END PRIVATE KEY-----\n`;

function tlsClient(tls: TlsOptions): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder().withTls(tls).withTimeout(5).withRetry({ maxRetries: 0 }).build(),
  );
}

Deno.test("withTls() trusts a private CA's server certificate", async () => {
  const { caCert, serverCert, serverKey } = await makeTlsMaterial();
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: serverCert, key: serverKey, onListen() {} },
    () => new Response("private"),
  );
  await using client = tlsClient({ caCerts: [caCert] });
  const response = await client.get(`https://127.0.0.1:${server.addr.port}/`);
  assert.equal(response.text, "private");
});

Deno.test("withTls() sends the client certificate to a server that requires one", async () => {
  const { caCert, serverCert, serverKey, clientCert, clientKey } = await makeTlsMaterial();
  const server = createHttpsServer(
    { cert: serverCert, key: serverKey, ca: caCert, requestCert: true, rejectUnauthorized: true },
    (request, response) => {
      const peer = (request.socket as TLSSocket).getPeerCertificate();
      response.end(String(peer.subject?.CN));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await using client = tlsClient({ caCerts: [caCert], cert: clientCert, key: clientKey });
    const response = await client.get(`https://127.0.0.1:${port}/`);
    assert.equal(response.text, "fetchline test client");
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

Deno.test("withTls() refuses bad input with a TypeError naming the field, never the key", async () => {
  const { caCert, clientCert } = await makeTlsMaterial();
  const builder = () => new HttpClientConfigBuilder();
  const cases: [unknown, RegExp][] = [
    [{ caCerts: ["not a certificate"] }, /^Invalid tls\.caCerts\[0\]: expected a PEM certificate/],
    [
      { caCerts: [caCert, 42] },
      /^Invalid tls\.caCerts\[1\]: expected a PEM certificate, got number/,
    ],
    [
      { caCerts: caCert },
      /^Invalid tls\.caCerts: expected an array of PEM certificates, got string/,
    ],
    [{ cert: clientCert }, /^Invalid tls\.key: a client certificate needs both cert and key$/],
    [{ key: FAKE_KEY }, /^Invalid tls\.cert: a client certificate needs both cert and key$/],
    [{ cert: clientCert, key: KEY_TEXT }, /^Invalid tls\.key: expected a PEM private key/],
    [{ cert: FAKE_KEY, key: FAKE_KEY }, /^Invalid tls\.cert: expected a PEM certificate/],
    [{ ca: [caCert] }, /^Invalid tls: unknown key "ca" \(known: caCerts, cert, key\)$/],
    [null, /^Invalid tls: expected an object, got null$/],
  ];
  for (const [options, message] of cases) {
    assert.throws(() => builder().withTls(options as TlsOptions), (error: unknown) => {
      assert.ok(error instanceof TypeError, String(error));
      assert.match(error.message, message);
      assert.ok(!error.message.includes("s3cret"), error.message);
      return true;
    });
  }
});

Deno.test("withTls() masks the key in the views of the settings, the config and the client", async () => {
  const { caCert, clientCert } = await makeTlsMaterial();
  const config = new HttpClientConfigBuilder()
    .withTls({ caCerts: [caCert], cert: clientCert, key: FAKE_KEY })
    .build();
  using client = new HttpClient(config);
  for (const value of [config.tls, config, client]) {
    for (const text of [Deno.inspect(value, { depth: 10 }), JSON.stringify(value)]) {
      assert.ok(!text.includes("s3cret"), text);
      assert.ok(text.includes("***"), text);
    }
  }
  assert.deepEqual(JSON.parse(JSON.stringify(client)).config.tls, {
    caCerts: [caCert],
    cert: clientCert,
    key: "***",
  });
  assert.equal(config.tls?.key, FAKE_KEY, "the settings themselves keep the key");
  assert.ok(Object.isFrozen(config.tls) && Object.isFrozen(config.tls?.caCerts));
});

Deno.test("build() refuses withTls() with a custom fetch, which could not apply it", async () => {
  const { caCert } = await makeTlsMaterial();
  const builder = new HttpClientConfigBuilder().withTls({ caCerts: [caCert] }).withFetch(fetch);
  assert.throws(
    () => builder.build(),
    new TypeError(
      "Invalid tls: a custom fetch (withFetch) cannot apply withTls(); configure TLS in that fetch",
    ),
  );
});

Deno.test("withPool() refuses TLS options, naming withTls()", () => {
  for (const name of ["caCerts", "cert", "key"]) {
    assert.throws(
      () => new HttpClientConfigBuilder().withPool({ [name]: FAKE_KEY }),
      new TypeError(`Invalid pool: ${name} is a TLS option, set it with withTls()`),
    );
  }
});
