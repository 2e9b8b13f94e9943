// Masking on the npm build under Node, where console.log() goes through
// util.inspect and `nodejs.util.inspect.custom`: requests, errors of a
// refused connection and clients with a proxy's basicAuth show no secret in
// util.inspect(), String() or JSON.stringify().

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { inspect } from "node:util";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpRequest,
} from "@fetchline/fetchline";

const SECRETS = ["pw-s3cret", "b3arer-s3cret", "q-t0ken-s3cret", "pr0xy-s3cret", "ba5e-s3cret"];

function assertHidden(value) {
  const texts = [String(value), inspect(value, { depth: 10 }), JSON.stringify(value)];
  for (let e = value; e instanceof Error; e = e.cause) texts.push(e.message, String(e.stack));
  for (const secret of SECRETS) {
    const leak = texts.find((text) => text.includes(secret));
    assert.equal(leak, undefined, `${secret} leaked`);
  }
  return texts;
}

/** A port on 127.0.0.1 nothing listens on. */
async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("util.inspect() and JSON.stringify() of a request mask its URL's password, query token and Authorization", () => {
  const request = new HttpRequest(
    "GET",
    "HTTP:/ada:pw-s3cret@127.0.0.1/x?access_token=q-t0ken-s3cret",
    {
      headers: { Authorization: "Bearer b3arer-s3cret" },
    },
  );
  const [string, shown] = assertHidden(request);
  assert.equal(string, "HttpRequest(GET http://ada:***@127.0.0.1/x?access_token=***)");
  assert.match(shown, /^HttpRequest \{/);
  assert.deepEqual(JSON.parse(JSON.stringify(request)).headers, { Authorization: "***" });
});

test("util.inspect() and JSON.stringify() of a refused connection's error show no Authorization, password or query token", async (t) => {
  const client = new HttpClient(
    new HttpClientConfigBuilder().withTimeout(5).withRetry({ maxRetries: 0 }).build(),
  );
  t.after(() => client.close());
  const port = await closedPort();
  const error = await client
    .get(`http://ada:pw-s3cret@127.0.0.1:${port}/x?access_token=q-t0ken-s3cret`, {
      headers: { Authorization: "Bearer b3arer-s3cret" },
    })
    .catch((e) => e);
  assert.equal(error.constructor, ConnectionException);
  const [, shown] = assertHidden(error);
  assert.match(shown, /^ConnectionException: Connection failed: connection refused \(.+\): GET /);
  const json = JSON.parse(JSON.stringify(error));
  assert.equal(json.name, "ConnectionException");
  assert.equal(json.request.url, `http://127.0.0.1:${port}/x?access_token=***`);
  assert.deepEqual(json.request.headers, { Authorization: "***" });
  assert.deepEqual(json.request.auth, ["ada", "***"]);
});

test("util.inspect() and JSON.stringify() of a client mask the base URL's password and a proxy's password", () => {
  const config = new HttpClientConfigBuilder()
    .withBaseUrl("http://ada:ba5e-s3cret@127.0.0.1/")
    .withProxy("http://ada:pr0xy-s3cret@127.0.0.1:3128")
    .build();
  const client = new HttpClient(config);
  try {
    assertHidden(client);
    assertHidden(config);
    const json = JSON.parse(JSON.stringify(client));
    assert.equal(json.config.proxy.url, "http://ada:***@127.0.0.1:3128");
    assert.equal(json.config.baseUrl, "http://ada:***@127.0.0.1/");
  } finally {
    client.close();
  }
});
