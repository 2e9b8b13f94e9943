// raiseForStatus(), json(schema) and the logging hooks' retry line on the npm
// build: through Node's transport, util.inspect's view, and the zod and
// valibot packages as a Node user installs them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { inspect } from "node:util";
import * as v from "valibot";
import { z } from "zod";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpStatusException,
  ResponseException,
  ResponseParseException,
} from "@fetchline/fetchline";
import { fixture, json } from "./server.mjs";

function client(t, server, configure = (builder) => builder) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5);
  const created = new HttpClient(configure(builder).build());
  t.after(() => created.close());
  return created;
}

test("raiseForStatus() passes a 200 through and throws HttpStatusException on a 404, no secret shown", async (t) => {
  const server = await fixture(t);
  // The server's reason is quoted (API.md), with the call's own credentials it echoes masked.
  server.route(
    "/missing",
    (_req, res) => json(res, 404, { error: "Bearer b3arer: no t0ken here" }),
  );
  const http = client(t, server, (b) => b.withRetry({ maxRetries: 0 }));
  assert.equal((await http.get("/ok")).raiseForStatus().json().path, "/ok");
  const response = await http.get("/missing", {
    params: { token: "t0ken" },
    headers: { Authorization: "Bearer b3arer" },
  });
  assert.throws(() => response.raiseForStatus(), (error) => {
    assert.ok(error instanceof HttpStatusException);
    assert.ok(error instanceof ResponseException && error instanceof HttpClientException);
    assert.equal(
      error.message,
      `Client error (status 404, "Bearer ***: no *** here"): GET ${server.url}/missing?token=***`,
    );
    assert.equal(error.response, response);
    for (const shown of [String(error), JSON.stringify(error), inspect(error, { depth: 10 })]) {
      for (const secret of ["t0ken", "b3arer"]) {
        assert.ok(!shown.includes(secret), `${secret} in ${shown}`);
      }
    }
    assert.match(inspect(error, { depth: 10 }), /statusCode: 404/);
    return true;
  });
});

const User = { id: 1, name: "Ada", joined: "2026-01-02T00:00:00Z" };

for (
  const [vendor, schema] of [
    ["zod", z.object({ id: z.number(), name: z.string(), joined: z.coerce.date() })],
    [
      "valibot",
      v.object({
        id: v.number(),
        name: v.string(),
        joined: v.pipe(v.string(), v.transform((text) => new Date(text))),
      }),
    ],
  ]
) {
  test(`json(schema) validates a body with ${vendor} on Node`, async (t) => {
    const server = await fixture(t);
    server.route("/user", (_req, res) => json(res, 200, User));
    server.route("/bad", (_req, res) => json(res, 200, { ...User, name: 7 }));
    const http = client(t, server);
    const user = (await http.get("/user")).json(schema);
    assert.equal(user.name, "Ada");
    assert.ok(user.joined instanceof Date);
    const response = await http.get("/bad");
    assert.throws(() => response.json(schema), (error) => {
      assert.ok(error instanceof ResponseParseException);
      assert.equal(
        error.message,
        `Response body does not match the schema (1 issue: name): GET ${server.url}/bad (status 200)`,
      );
      assert.equal(error.issues.length, 1);
      assert.equal(error.response, response);
      return true;
    });
  });
}

test("json(schema) refuses an async validator with a TypeError on Node", async (t) => {
  const server = await fixture(t);
  const response = await client(t, server).get("/any");
  const slow = v.objectAsync({
    path: v.pipeAsync(v.string(), v.checkAsync(() => Promise.resolve(false))),
  });
  assert.throws(() => response.json(slow), {
    name: "TypeError",
    message: /^Invalid schema: the valibot validator is asynchronous/,
  });
});

test("withLogging() logs the retry line before the wait on Node", async (t) => {
  const server = await fixture(t);
  let calls = 0;
  server.route("/flaky", (_req, res) => json(res, ++calls === 1 ? 503 : 200, {}));
  const lines = [];
  const at = (level) => (message) => void lines.push(`${level} ${message}`);
  const logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  const http = client(
    t,
    server,
    (b) =>
      b.withRetry({ random: () => 0.5, sleep: () => Promise.resolve() }).withLogging({ logger }),
  );
  assert.equal((await http.get("/flaky")).statusCode, 200);
  assert.equal(lines.length, 5);
  assert.match(lines[2], /^warn \[[0-9a-f]{8}\] Retrying in 0\.25 s \(attempt 2\/3\): status 503$/);
});
