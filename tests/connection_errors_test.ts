// Connection failures name their root cause in the message, on one line,
// the cause first and the call (its URL masked) last, with the runtime's
// error kept as `cause`: each against a real listener that fails that way.

import assert from "node:assert/strict";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  type TlsOptions,
} from "../mod.ts";
import { rejectsWith } from "./helpers.ts";
import { type RawFault, startRawServer } from "./raw_server.ts";
import { makeTlsMaterial } from "./tls_material.ts";

/** A client with one attempt per call, and `tls` when given. */
function client(tls?: TlsOptions): HttpClient {
  const builder = new HttpClientConfigBuilder().withTimeout(5).withRetry({ maxRetries: 0 });
  if (tls !== undefined) builder.withTls(tls);
  return new HttpClient(builder.build());
}

/** Asserts `url` fails with a ConnectionException whose message is `Connection failed: <cause> (…): GET <url>`. */
async function assertCause(url: string, cause: RegExp, tls?: TlsOptions): Promise<unknown> {
  await using http = client(tls);
  const error = await rejectsWith(http.get(url), ConnectionException, cause) as ConnectionException;
  assert.ok(error.message.endsWith(`): GET ${url}`), error.message);
  assert.ok(!error.message.includes("\n"), "one line");
  assert.ok(error.cause instanceof Error, "the runtime's error is the cause");
  return error;
}

async function withRaw(fault: RawFault, run: (url: string) => Promise<unknown>): Promise<void> {
  const server = await startRawServer(fault, []);
  try {
    await run(`${server.url}/x`);
  } finally {
    await server.close();
  }
}

Deno.test("HttpClient names a refused connection", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  await assertCause(
    `http://127.0.0.1:${listener.addr.port}/x`,
    /^Connection failed: connection refused \(.*refused.*\): GET /i,
  );
});

Deno.test("HttpClient names a reset connection", async () => {
  await withRaw("reset", (url) => assertCause(url, /^Connection failed: connection reset \(/));
});

Deno.test("HttpClient names a connection closed before or within the response head", async () => {
  for (const fault of ["closed-before-head", "closed-within-head"] as const) {
    await withRaw(
      fault,
      (url) => assertCause(url, /^Connection failed: connection closed early \(/),
    );
  }
});

Deno.test("HttpClient names a host that is not found", async () => {
  await assertCause("http://fetchline-test.invalid/x", /^Connection failed: host not found \(/);
});

Deno.test("HttpClient names a response that is not HTTP", async () => {
  for (const fault of ["garbage", "bad-status-line"] as const) {
    await withRaw(fault, (url) => assertCause(url, /^Connection failed: malformed response \(/));
  }
});

Deno.test("HttpClient names a response head too large to parse", async () => {
  for (const fault of ["many-headers", "big-header"] as const) {
    await withRaw(fault, async (url) => {
      await using http = client();
      await rejectsWith(
        http.get(url),
        HttpClientException,
        /^Malformed response \(too many response headers\): GET http:\/\/127\.0\.0\.1:\d+\/x/,
      );
    });
  }
});

/** Runs `test` against a Deno HTTPS server with `cert`, on `https://127.0.0.1:<port>/x`. */
async function withHttps(cert: string, test: (url: string) => Promise<unknown>): Promise<void> {
  const { serverKey: key } = await makeTlsMaterial();
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen() {}, onError: () => new Response() },
    () => new Response("ok"),
  );
  await test(`https://127.0.0.1:${server.addr.port}/x`);
}

Deno.test("HttpClient names a TLS certificate no trusted CA signed", async () => {
  const { serverCert } = await makeTlsMaterial();
  await withHttps(serverCert, async (url) => {
    const error = await assertCause(
      url,
      /^Connection failed: TLS certificate not trusted \(invalid peer certificate: UnknownIssuer\): GET /,
    );
    assert.match(String(error), /^ConnectionException: Connection failed: TLS/);
  });
});

Deno.test("HttpClient names a TLS certificate for another name", async () => {
  const { caCert, otherNameCert } = await makeTlsMaterial();
  await withHttps(
    otherNameCert,
    (url) =>
      assertCause(url, /^Connection failed: TLS certificate name mismatch \(/, {
        caCerts: [caCert],
      }),
  );
});

Deno.test("HttpClient names an expired TLS certificate", async () => {
  const { caCert, expiredCert } = await makeTlsMaterial();
  await withHttps(
    expiredCert,
    (url) =>
      assertCause(url, /^Connection failed: TLS certificate expired \(/, { caCerts: [caCert] }),
  );
});

Deno.test("HttpClient names a client certificate the server required and did not get", async () => {
  const { caCert, serverCert, serverKey } = await makeTlsMaterial();
  const server = createHttpsServer(
    { cert: serverCert, key: serverKey, ca: caCert, requestCert: true, rejectUnauthorized: true },
    (_request, response) => response.end("ok"),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await assertCause(
      `https://127.0.0.1:${port}/x`,
      /^Connection failed: TLS client certificate required \(/,
      { caCerts: [caCert] },
    );
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

Deno.test("HttpClient masks a query secret in a connection failure's message", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  await using http = client();
  const url = `http://127.0.0.1:${listener.addr.port}/x?access_token=t0ken`;
  const error = await rejectsWith(http.get(url), ConnectionException, /connection refused/);
  assert.ok(!error.message.includes("t0ken"), error.message);
  assert.match(error.message, /: GET http:\/\/127\.0\.0\.1:\d+\/x\?access_token=\*\*\*$/);
});
