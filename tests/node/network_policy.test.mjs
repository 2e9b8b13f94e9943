// withNetworkPolicy() on the npm build under Node: undici's connect lookup
// resolves once per connection, checks every answer and hands back only the
// allowed ones; an address host is checked before any connection; a
// redirect to a denied address, an allowed host and range, an allowed host
// resolved by the policy's resolve, a resolver whose answers change between
// calls; the policy refused with a proxy.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import {
  BlockedDestinationException,
  HttpClient,
  HttpClientConfigBuilder,
} from "@fetchline/fetchline";
import { rejection } from "./helpers.mjs";

/** A node:http server on `host` (port 0: any) recording the paths it is sent. */
async function counted(host = "127.0.0.1", port = 0, handler = undefined) {
  const seen = [];
  const server = createServer((request, response) => {
    seen.push(request.url);
    if (handler?.(request, response)) return;
    response.end(`ok from ${host}`);
  });
  await new Promise((resolve, reject) => server.listen(port, host, resolve).on("error", reject));
  return {
    seen,
    port: server.address().port,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function guarded(policy = {}, retries = 0) {
  return new HttpClient(
    new HttpClientConfigBuilder().withNetworkPolicy(policy)
      .withRetry({ maxRetries: retries, backoff: 0.001 }).withTimeout(10).build(),
  );
}

test("Every denied spelling of an address is refused before any connection, never retried", async () => {
  const server = await counted();
  const client = guarded({}, 2);
  try {
    for (
      const [host, rule] of [
        ["127.0.0.1", "loopback"],
        ["127.1", "loopback"],
        ["2130706433", "loopback"],
        ["0x7f.1", "loopback"],
        ["[::ffff:127.0.0.1]", "loopback"],
        ["[::1]", "loopback"],
        ["0", "this-network"],
        ["10.0.0.1", "private"],
        ["169.254.169.254", "link-local"],
        ["[fd00::1]", "unique-local"],
      ]
    ) {
      const error = await rejection(client.get(`http://${host}:${server.port}/x`));
      assert.ok(error instanceof BlockedDestinationException, `${host}: ${error}`);
      assert.equal(error.rule, rule, host);
    }
    assert.deepEqual(server.seen, []);
  } finally {
    client.close();
    await server.close();
  }
});

test("A name that resolves to a denied address is refused; an allowed range and host are reached; a redirect to a denied address is refused", async () => {
  const denied = await counted("127.0.0.2");
  const allowed = await counted("127.0.0.1", 0, (request, response) => {
    if (request.url !== "/jump") return false;
    response.writeHead(302, { location: `http://127.0.0.2:${denied.port}/inside` }).end();
    return true;
  });
  const asked = [];
  const bad = guarded({ resolve: (name) => (asked.push(name), Promise.resolve(["127.0.0.1"])) }, 3);
  const good = guarded({
    allow: ["127.0.0.1/32", "localhost"],
    resolve: () => Promise.resolve(["127.0.0.1"]),
  });
  try {
    const error = await rejection(bad.get(`http://hook.fetchline-test.invalid:${allowed.port}/`));
    assert.ok(error instanceof BlockedDestinationException, String(error));
    assert.deepEqual([error.host, error.address, error.rule], [
      "hook.fetchline-test.invalid",
      "127.0.0.1",
      "loopback",
    ]);
    assert.match(error.message, /hook\.fetchline-test\.invalid is 127\.0\.0\.1 \(loopback/);
    assert.deepEqual(asked, ["hook.fetchline-test.invalid"]);
    const url = `http://hook.fetchline-test.invalid:${allowed.port}`;
    assert.equal((await good.get(`${url}/a`)).text, "ok from 127.0.0.1");
    assert.equal((await good.get(`http://localhost:${allowed.port}/b`)).text, "ok from 127.0.0.1");
    const jump = await rejection(good.get(`${url}/jump`));
    assert.ok(jump instanceof BlockedDestinationException, String(jump));
    assert.equal(jump.address, "127.0.0.2");
    assert.deepEqual(allowed.seen, ["/a", "/b", "/jump"]);
    assert.deepEqual(denied.seen, []);
  } finally {
    bad.close();
    good.close();
    await allowed.close();
    await denied.close();
  }
});

test("An allowed host name is resolved by the policy's resolve (else the system) and its answer connected to unchecked", async () => {
  const server = await counted("127.0.0.3");
  const system = await counted("127.0.0.1");
  const asked = [];
  const named = guarded({
    allow: ["api.fetchline-test.invalid"],
    resolve: (name) => (asked.push(name), Promise.resolve(["127.0.0.3"])),
  });
  const plain = guarded({ allow: ["localhost"] });
  try {
    // The system cannot resolve the name; the policy's resolve can, and the name is allowed.
    const url = `http://api.fetchline-test.invalid:${server.port}/named`;
    assert.equal((await named.get(url)).text, "ok from 127.0.0.3");
    assert.deepEqual(asked, ["api.fetchline-test.invalid"]);
    // Without a resolve, the system's answers for an allowed name are not checked either.
    assert.equal(
      (await plain.get(`http://localhost:${system.port}/system`)).text,
      "ok from 127.0.0.1",
    );
    assert.deepEqual(server.seen, ["/named"]);
    assert.deepEqual(system.seen, ["/system"]);
  } finally {
    named.close();
    plain.close();
    await server.close();
    await system.close();
  }
});

test("The address checked is the address connected to: a resolver whose second answer differs never steers the connection", async () => {
  const first = await counted("127.0.0.1");
  const second = await counted("127.0.0.2", first.port);
  let calls = 0;
  const answers = [["127.0.0.1"], ["127.0.0.2"]];
  const client = guarded({
    allow: ["127.0.0.1/32"],
    resolve: () => Promise.resolve(answers[Math.min(calls++, 1)]),
  });
  try {
    const url = `http://rebind.fetchline-test.invalid:${first.port}`;
    assert.equal((await client.get(`${url}/one`)).text, "ok from 127.0.0.1");
    assert.equal(calls, 1);
    // A new connection looks the name up once more, and its answer is checked.
    const error = await rejection(client.get(`${url.replace("rebind.", "")}/two`));
    assert.ok(error instanceof BlockedDestinationException, String(error));
    assert.equal(error.address, "127.0.0.2");
    assert.equal(calls, 2);
    assert.deepEqual(first.seen, ["/one"]);
    assert.deepEqual(second.seen, []);
  } finally {
    client.close();
    await first.close();
    await second.close();
  }
});

test("build() refuses the policy with a proxy or a custom fetch", () => {
  assert.throws(
    () => new HttpClientConfigBuilder().withNetworkPolicy().withProxy("http://127.0.0.1:1").build(),
    /^TypeError: Invalid networkPolicy: a proxy resolves and connects/,
  );
  assert.throws(
    () => new HttpClientConfigBuilder().withNetworkPolicy().withFetch(fetch).build(),
    /^TypeError: Invalid networkPolicy: a custom fetch/,
  );
});

test("IPv6 loopback: [::1] refused by default, reached when allowed, by address and by a name resolving to it", async () => {
  const server = await counted("::1");
  const refusing = guarded();
  const allowing = guarded({ allow: ["::1"], resolve: () => Promise.resolve(["::1"]) });
  try {
    const error = await rejection(refusing.get(`http://[::1]:${server.port}/refused`));
    assert.ok(error instanceof BlockedDestinationException);
    assert.match(error.message, /: ::1 \(loopback, ::1\/128\): GET http:\/\/\[::1\]:\d+\/refused$/);
    assert.equal((await allowing.get(`http://[::1]:${server.port}/a`)).text, "ok from ::1");
    assert.equal(
      (await allowing.get(`http://fetchline-test.invalid:${server.port}/b`)).text,
      "ok from ::1",
    );
    assert.deepEqual(server.seen, ["/a", "/b"]);
  } finally {
    refusing.close();
    allowing.close();
    await server.close();
  }
});
