// The relay a pinned pool connects through on Deno (src/transport/deno_relay.ts)
// listens on a loopback port any local process can reach: it serves only the
// pool holding its secret (anything else is answered 407 and no byte goes on),
// and its own wait for a target ends at its limit, at close(), and when the
// client goes away.

import assert from "node:assert/strict";
import { Relay, targetKey } from "../src/transport/deno_relay.ts";
import { checkNetworkPolicy } from "../src/config/network_settings.ts";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";

/** A raw TCP server on 127.0.0.1 counting the connections it is given. */
function target() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const seen: number[] = [];
  void (async () => {
    try {
      for await (const conn of listener) {
        seen.push(1);
        conn.close();
      }
    } catch {
      // Closed.
    }
  })();
  return { seen, port: listener.addr.port, close: () => listener.close() };
}

/** Sends `head` to the relay and returns all it answers until it closes (at most 5 s). */
async function ask(port: number, head: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(head));
    const chunks: Uint8Array[] = [];
    const deadline = Date.now() + 5000;
    for (const buffer = new Uint8Array(4096); Date.now() < deadline;) {
      const read = await conn.read(buffer);
      if (read === null) break;
      chunks.push(buffer.slice(0, read));
    }
    return new TextDecoder().decode(new Uint8Array(chunks.flatMap((chunk) => [...chunk])));
  } finally {
    conn.close();
  }
}

const basic = (user: string, password: string) => `Basic ${btoa(`${user}:${password}`)}`;

Deno.test("The relay answers 407 to a connection without its secret, and the target sees nothing", async () => {
  const server = target();
  const relay = new Relay(Deno, undefined);
  try {
    const { username, password } = relay.credentials;
    assert.equal(password.length, 64);
    const wrong = [
      "",
      `Proxy-Authorization: ${basic(username, "0".repeat(64))}\r\n`,
      `Proxy-Authorization: ${basic(username, password.slice(1))}\r\n`,
      `Proxy-Authorization: ${basic("other", password)}\r\n`,
      `Authorization: ${basic(username, password)}\r\n`,
    ];
    for (const auth of wrong) {
      for (
        const line of [`CONNECT 127.0.0.1:${server.port}`, `GET http://127.0.0.1:${server.port}/`]
      ) {
        const answer = await ask(relay.port, `${line} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`);
        assert.match(
          answer,
          /^HTTP\/1\.1 407 Proxy Authentication Required\r\n/,
          `${line} ${auth}`,
        );
        assert.doesNotMatch(answer, new RegExp(password));
      }
    }
    assert.deepEqual(server.seen, []);
    // With its secret, the same request is relayed.
    const answer = await ask(
      relay.port,
      `CONNECT 127.0.0.1:${server.port} HTTP/1.1\r\nProxy-Authorization: ${
        basic(username, password)
      }\r\n\r\n`,
    );
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.deepEqual(server.seen, [1]);
  } finally {
    relay.close();
    server.close();
  }
});

Deno.test("The relay's wait for a target ends at its limit, when the client goes away, and at close()", async () => {
  const asked: string[] = [];
  let release = () => {};
  const never = new Promise<readonly string[]>((resolve) => release = () => resolve([]));
  const policy = checkNetworkPolicy({
    resolve: (name) => (asked.push(name), never),
  });
  const connect = (relay: Relay) =>
    `CONNECT fetchline-test.invalid:443 HTTP/1.1\r\nProxy-Authorization: ${
      basic(relay.credentials.username, relay.credentials.password)
    }\r\n\r\n`;
  const key = targetKey("fetchline-test.invalid", 443);

  const limited = new Relay(Deno, policy, 200);
  try {
    const started = Date.now();
    assert.match(await ask(limited.port, connect(limited)), /^HTTP\/1\.1 502 /);
    assert.ok(Date.now() - started < 3000);
    assert.match(String(limited.failureSince(key, 0)), /timed out after 200 ms/);
  } finally {
    limited.close();
  }

  // The client leaves while the lookup is under way: the relay stops waiting
  // then, and records no timeout at its limit.
  const left = new Relay(Deno, policy, 300);
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: left.port });
    await conn.write(new TextEncoder().encode(connect(left)));
    for (let i = 0; i < 100 && asked.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    conn.close();
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(left.failureSince(key, 0), undefined);
  } finally {
    left.close();
  }

  const closed = new Relay(Deno, policy, 60_000);
  const answer = ask(closed.port, connect(closed));
  for (let i = 0; i < 100 && asked.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  const started = Date.now();
  closed.close();
  assert.equal(await answer, "");
  assert.ok(Date.now() - started < 3000);
  assert.equal(asked.length, 3);
  release();
});

Deno.test("The pool presents the secret to its relay, which never hands it on to the target", async () => {
  const heads: string[] = [];
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    heads.push([...request.headers.keys()].join(","));
    return new Response("ok");
  });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withNetworkPolicy({ allow: ["127.0.0.1/32"] }).build(),
  );
  for (let i = 0; i < 3; i++) {
    assert.equal((await client.get(`http://127.0.0.1:${server.addr.port}/${i}`)).text, "ok");
  }
  assert.equal(heads.length, 3);
  for (const head of heads) assert.doesNotMatch(head, /proxy/i);
});
