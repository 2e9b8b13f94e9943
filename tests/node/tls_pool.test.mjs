// withTls() on the npm build builds its TLS context once per client: Node's
// `ca` option replaces the default roots, so the client gives them all
// (about 150 certificates) with its own, and a context parsed from them for
// every new connection costs tens of milliseconds of CPU each.

import assert from "node:assert/strict";
import { createServer } from "node:https";
import { test } from "node:test";
import tls from "node:tls";
import { inspect } from "node:util";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { makeTlsMaterial } from "./tls_material.mjs";

test("withTls() parses its CA certificates once per client, not once per connection", async (t) => {
  const { caCert, serverCert, serverKey, clientCert, clientKey } = await makeTlsMaterial();
  // Each response closes its connection: every call makes a new one.
  const server = createServer({ cert: serverCert, key: serverKey }, (_request, response) => {
    response.setHeader("connection", "close");
    response.end("ok");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const url = `https://127.0.0.1:${server.address().port}/x`;
  const created = tls.createSecureContext;
  let contexts = 0;
  tls.createSecureContext = (...args) => (contexts++, created(...args));
  t.after(() => (tls.createSecureContext = created));
  const settings = [{ caCerts: [caCert] }, { caCerts: [caCert], cert: clientCert, key: clientKey }];
  for (const tlsSettings of settings) {
    contexts = 0;
    const builder = new HttpClientConfigBuilder().withTls(tlsSettings).withRetry({ maxRetries: 0 });
    const client = new HttpClient(builder.build());
    try {
      for (let i = 0; i < 5; i++) assert.equal((await client.get(url)).text, "ok");
    } finally {
      client.close();
    }
    assert.ok(contexts <= 1, `${contexts} TLS contexts for 5 connections`);
  }
});

test("withTls() with a key that is not the certificate's fails the call with a TypeError, as on Deno, the key not shown", async () => {
  const { clientCert, serverKey } = await makeTlsMaterial();
  const builder = new HttpClientConfigBuilder().withTls({ cert: clientCert, key: serverKey });
  const client = new HttpClient(builder.withRetry({ maxRetries: 0 }).build());
  try {
    await assert.rejects(client.get("https://127.0.0.1:1/x"), (error) => {
      assert.equal(error.constructor, TypeError, String(error));
      assert.match(
        error.message,
        /^Invalid tls: the certificate, key or CA certificates were refused: /,
      );
      const body = serverKey.split("\n")[1];
      assert.ok(!error.message.includes(body) && !inspect(error).includes(body), error.message);
      return true;
    });
  } finally {
    client.close();
  }
});
