// withNetworkPolicy(): the special-purpose ranges in every spelling the URL
// parser takes (a table), refused before any byte is sent; a name that
// resolves to a refused address; a redirect to one; allow by host and by
// range; the address checked is the address connected to (a resolver whose
// answers change between calls); never retried; what build() refuses.

import assert from "node:assert/strict";
import {
  BlockedDestinationException,
  HttpClient,
  HttpClientConfigBuilder,
  type NetworkPolicyOptions,
} from "../mod.ts";
import { specialRange } from "../src/transport/addresses.ts";
import { parseIp } from "../src/transport/addresses.ts";
import { rejectsWith, throwsAtOnce } from "./helpers.ts";
import { makeTlsMaterial } from "./tls_material.ts";
import { proxyChildCode, runDenoChild } from "./proxy_server.ts";

// [URL host as written, the address it is, the rule]
const DENIED: readonly (readonly [string, string, string])[] = [
  ["127.0.0.1", "127.0.0.1", "loopback"],
  ["127.1", "127.0.0.1", "loopback"],
  ["2130706433", "127.0.0.1", "loopback"],
  ["0x7f.1", "127.0.0.1", "loopback"],
  ["0177.0.0.1", "127.0.0.1", "loopback"],
  ["127.0.0.1.", "127.0.0.1", "loopback"],
  ["127.255.255.254", "127.255.255.254", "loopback"],
  ["0", "0.0.0.0", "this-network"],
  ["0.1.2.3", "0.1.2.3", "this-network"],
  ["10.1.2.3", "10.1.2.3", "private"],
  ["172.16.0.1", "172.16.0.1", "private"],
  ["172.31.255.255", "172.31.255.255", "private"],
  ["192.168.1.1", "192.168.1.1", "private"],
  ["100.64.0.1", "100.64.0.1", "carrier-grade-nat"],
  ["169.254.169.254", "169.254.169.254", "link-local"],
  ["0xa9fea9fe", "169.254.169.254", "link-local"],
  ["192.0.0.1", "192.0.0.1", "ietf-protocol"],
  ["192.0.2.7", "192.0.2.7", "documentation"],
  ["198.18.0.1", "198.18.0.1", "benchmarking"],
  ["198.51.100.1", "198.51.100.1", "documentation"],
  ["203.0.113.9", "203.0.113.9", "documentation"],
  ["224.0.0.1", "224.0.0.1", "multicast"],
  ["239.255.255.250", "239.255.255.250", "multicast"],
  ["240.0.0.1", "240.0.0.1", "reserved"],
  ["255.255.255.255", "255.255.255.255", "broadcast"],
  ["[::1]", "::1", "loopback"],
  ["[0:0:0:0:0:0:0:1]", "::1", "loopback"],
  ["[::]", "::", "unspecified"],
  ["[::ffff:127.0.0.1]", "::ffff:7f00:1", "loopback"],
  ["[::ffff:7f00:1]", "::ffff:7f00:1", "loopback"],
  ["[::ffff:169.254.169.254]", "::ffff:a9fe:a9fe", "link-local"],
  ["[::127.0.0.1]", "::7f00:1", "ipv4-compatible"],
  ["[64:ff9b::10.0.0.1]", "64:ff9b::a00:1", "private"],
  ["[64:ff9b:1::1]", "64:ff9b:1::1", "local-nat64"],
  ["[2002:7f00:1::]", "2002:7f00:1::", "loopback"],
  ["[2002:c0a8:101::1]", "2002:c0a8:101::1", "private"],
  ["[fc00::1]", "fc00::1", "unique-local"],
  ["[fd12:3456::1]", "fd12:3456::1", "unique-local"],
  ["[fe80::1]", "fe80::1", "link-local"],
  ["[fec0::1]", "fec0::1", "site-local"],
  ["[ff02::1]", "ff02::1", "multicast"],
  ["[2001:db8::1]", "2001:db8::1", "documentation"],
  ["[3fff::1]", "3fff::1", "documentation"],
  ["[2001::1]", "2001::1", "ietf-protocol"],
  ["[100::1]", "100::1", "discard-only"],
  ["[5f00::1]", "5f00::1", "srv6-sid"],
  ["[4000::1]", "4000::1", "reserved"],
];

const ALLOWED: readonly string[] = [
  "93.184.216.34",
  "8.8.8.8",
  "1.1.1.1",
  "172.32.0.1",
  "100.128.0.1",
  "192.0.0.9",
  "192.0.0.10",
  "[2606:4700:4700::1111]",
  "[::ffff:8.8.8.8]",
  "[64:ff9b::808:808]",
  "[2002:808:808::1]",
  "[2001:4:112::1]",
  "[2001:20::1]",
];

Deno.test("The special-purpose ranges, in every spelling the URL parser takes, and the public addresses beside them", () => {
  for (const [host, address, rule] of DENIED) {
    const parsed = new URL(`http://${host}/`).hostname.replace(/^\[(.*)\]$/, "$1");
    assert.equal(parsed, address, host);
    const ip = parseIp(parsed);
    assert.ok(ip !== undefined, host);
    assert.equal(specialRange(ip)?.rule, rule, host);
  }
  for (const host of ALLOWED) {
    const ip = parseIp(new URL(`http://${host}/`).hostname);
    assert.ok(ip !== undefined, host);
    assert.equal(specialRange(ip), undefined, host);
  }
});

/** A server on `hostname` (port 0: any) counting the requests it is sent. */
function counted(hostname = "127.0.0.1", port = 0, handler?: (request: Request) => Response) {
  const seen: string[] = [];
  const server = Deno.serve({ hostname, port, onListen() {} }, (request) => {
    seen.push(new URL(request.url).pathname);
    return handler?.(request) ?? new Response(`ok from ${hostname}`);
  });
  return { server, seen, port: server.addr.port };
}

function guarded(policy: NetworkPolicyOptions = {}, retries = 0) {
  return new HttpClient(
    new HttpClientConfigBuilder().withNetworkPolicy(policy)
      .withRetry({ maxRetries: retries, backoff: 0.001 }).withTimeout(10).build(),
  );
}

Deno.test("Every denied spelling of a loopback address is refused through the client, and no byte reaches the server", async () => {
  const { server, seen, port } = counted();
  await using _ = server;
  await using client = guarded({}, 2);
  for (const host of ["127.0.0.1", "127.1", "2130706433", "0x7f.1", "[::ffff:127.0.0.1]", "0"]) {
    const error = await rejectsWith(
      client.get(`http://${host}:${port}/x`),
      BlockedDestinationException,
      /^Destination refused by the network policy: .*\((loopback|this-network), .*\): GET http:/,
    ) as BlockedDestinationException;
    assert.match(error.rule, /loopback|this-network/);
    assert.ok(
      error.address === "127.0.0.1" || error.address === "0.0.0.0" ||
        error.address === "::ffff:7f00:1",
    );
  }
  assert.deepEqual(seen, []);
  const error = await rejectsWith(
    client.get(`http://169.254.169.254/latest/meta-data/`),
    BlockedDestinationException,
    /169\.254\.169\.254 \(link-local, 169\.254\.0\.0\/16\)/,
  ) as BlockedDestinationException;
  assert.deepEqual([error.host, error.address, error.rule], [
    "169.254.169.254",
    "169.254.169.254",
    "link-local",
  ]);
});

Deno.test("A public-looking name that resolves to a denied address is refused, never retried, and the server sees nothing", async () => {
  const { server, seen, port } = counted();
  await using _ = server;
  const asked: string[] = [];
  await using client = guarded({
    resolve: (name) => (asked.push(name), Promise.resolve(["127.0.0.1"])),
  }, 3);
  const error = await rejectsWith(
    client.get(`http://fetchline-test.invalid:${port}/hook`),
    BlockedDestinationException,
    /: fetchline-test\.invalid is 127\.0\.0\.1 \(loopback/,
  ) as BlockedDestinationException;
  assert.equal(error.host, "fetchline-test.invalid");
  assert.equal(error.address, "127.0.0.1");
  assert.deepEqual(asked, ["fetchline-test.invalid"]);
  assert.deepEqual(seen, []);
});

Deno.test("An allowed range and an allowed host are reached; a redirect from one to a denied address is refused", async () => {
  const denied = counted("127.0.0.3");
  await using _d = denied.server;
  const allowed = counted(
    "127.0.0.1",
    0,
    (request) =>
      new URL(request.url).pathname === "/jump"
        ? Response.redirect(`http://127.0.0.3:${denied.port}/inside`, 302)
        : new Response("ok"),
  );
  await using _a = allowed.server;
  await using client = guarded({
    allow: ["127.0.0.1/32", "localhost"],
    resolve: () => Promise.resolve(["127.0.0.1"]),
  });
  assert.equal((await client.get(`http://fetchline-test.invalid:${allowed.port}/a`)).text, "ok");
  assert.equal((await client.get(`http://127.0.0.1:${allowed.port}/b`)).text, "ok");
  assert.equal((await client.get(`http://localhost:${allowed.port}/c`)).text, "ok");
  const error = await rejectsWith(
    client.get(`http://127.0.0.1:${allowed.port}/jump`),
    BlockedDestinationException,
    /: 127\.0\.0\.3 \(loopback, 127\.0\.0\.0\/8\): GET http:\/\/127\.0\.0\.1:\d+\/jump$/,
  ) as BlockedDestinationException;
  assert.equal(error.address, "127.0.0.3");
  assert.deepEqual(allowed.seen, ["/a", "/b", "/c", "/jump"]);
  assert.deepEqual(denied.seen, []);
});

Deno.test("The policy's resolve answers for an allowed host name too, and its answer is connected to unchecked", async () => {
  const { server, seen, port } = counted("127.0.0.3");
  await using _ = server;
  const asked: string[] = [];
  await using client = guarded({
    allow: ["fetchline-test.invalid"],
    resolve: (name) => (asked.push(name), Promise.resolve(["127.0.0.3"])),
  });
  // The system cannot resolve the name; the policy's resolve can, and the name is allowed.
  assert.equal(
    (await client.get(`http://fetchline-test.invalid:${port}/named`)).text,
    "ok from 127.0.0.3",
  );
  assert.deepEqual(asked, ["fetchline-test.invalid"]);
  assert.deepEqual(seen, ["/named"]);
});

Deno.test("An allowed host the environment's NO_PROXY names is refused when the policy has a resolve: Deno's client would ask the system", async () => {
  const { server, seen, port } = counted("127.0.0.3");
  await using _ = server;
  const setup = `.withNetworkPolicy({ allow: ["fetchline-test.invalid"], ` +
    `resolve: () => Promise.resolve(["127.0.0.3"]) })`;
  const out = await runDenoChild(
    proxyChildCode(setup, `http://fetchline-test.invalid:${port}/direct`),
    { NO_PROXY: "fetchline-test.invalid" },
    ["--allow-net=127.0.0.3,fetchline-test.invalid", "--allow-env=NO_PROXY,no_proxy"],
  );
  assert.match(
    out,
    /^error HttpClientException .*The network policy cannot check fetchline-test\.invalid on Deno: the environment's NO_PROXY names it, .*\(remove it from NO_PROXY: the policy's resolve answers for every host name\): GET http:/m,
  );
  assert.deepEqual(seen, []);
});

Deno.test("The address checked is the address connected to: a resolver whose second answer differs never steers the connection", async () => {
  const first = counted("127.0.0.1");
  await using _1 = first.server;
  const second = counted("127.0.0.3", first.port);
  await using _2 = second.server;
  const answers = [["127.0.0.1"], ["127.0.0.3"], ["127.0.0.3"]];
  let calls = 0;
  await using client = guarded({
    allow: ["127.0.0.1/32"],
    resolve: () => Promise.resolve(answers[Math.min(calls++, 2)]!),
  });
  const url = `http://fetchline-test.invalid:${first.port}/`;
  assert.equal((await client.get(`${url}one`)).text, "ok from 127.0.0.1");
  assert.equal(calls, 1);
  await rejectsWith(client.get(`${url}two`), BlockedDestinationException, /is 127\.0\.0\.3/);
  assert.deepEqual(first.seen, ["/one"]);
  assert.deepEqual(second.seen, []);
});

Deno.test("https is pinned too: the tunnel goes to the checked address and the certificate is checked for the URL's host", async () => {
  const tls = await makeTlsMaterial();
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.serverCert, key: tls.serverKey, onListen() {} },
    () => new Response("secure"),
  );
  const config = new HttpClientConfigBuilder().withNetworkPolicy({
    allow: ["127.0.0.1/32"],
    resolve: () => Promise.resolve(["127.0.0.1"]),
  }).withTls({ caCerts: [tls.caCert] }).withRetry({ maxRetries: 0 }).build();
  await using client = new HttpClient(config);
  // The certificate names 127.0.0.1 and localhost, not this name: refused for it.
  await assert.rejects(
    client.get(`https://fetchline-test.invalid:${server.addr.port}/`),
    /TLS certificate name mismatch/,
  );
  assert.equal((await client.get(`https://127.0.0.1:${server.addr.port}/`)).text, "secure");
  await rejectsWith(
    client.get(`https://[::1]:${server.addr.port}/`),
    BlockedDestinationException,
    /::1 \(loopback/,
  );
});

Deno.test("build() refuses a policy with a custom fetch or a proxy, and bad entries, naming the field", () => {
  throwsAtOnce(
    () => new HttpClientConfigBuilder().withNetworkPolicy().withFetch(fetch).build(),
    TypeError,
    /^Invalid networkPolicy: a custom fetch/,
  );
  throwsAtOnce(
    () =>
      new HttpClientConfigBuilder().withNetworkPolicy().withProxy("http://127.0.0.1:3128")
        .build(),
    TypeError,
    /^Invalid networkPolicy: a proxy resolves and connects to the target itself/,
  );
  throwsAtOnce(
    () => new HttpClientConfigBuilder().withNetworkPolicy({ allow: ["10.0.0.0/33"] }),
    TypeError,
    'Invalid networkPolicy.allow[0]: expected a host name or an address range, got "10.0.0.0/33"',
  );
  throwsAtOnce(
    () => new HttpClientConfigBuilder().withNetworkPolicy({ deny: "public" as "private" }),
    TypeError,
    'Invalid networkPolicy.deny[0]: expected "private" or an address range, got "public"',
  );
  throwsAtOnce(
    () => new HttpClientConfigBuilder().withNetworkPolicy({ resolve: "8.8.8.8" as never }),
    TypeError,
    "Invalid networkPolicy.resolve: expected a function, got string",
  );
  const config = new HttpClientConfigBuilder().withNetworkPolicy({ allow: ["Example.COM."] })
    .build();
  assert.deepEqual(JSON.parse(JSON.stringify(config)).networkPolicy, {
    deny: ["private"],
    allow: ["example.com"],
  });
  assert.ok(Object.isFrozen(config.networkPolicy));
});

Deno.test("A deny range of the policy's own is refused, and an allow range wins over it", async () => {
  const { server, seen, port } = counted();
  await using _ = server;
  await using client = guarded({ deny: ["private", "127.0.0.0/8"], allow: ["127.0.0.1"] });
  assert.equal((await client.get(`http://127.0.0.1:${port}/in`)).statusCode, 200);
  const error = await rejectsWith(
    client.get(`http://127.0.0.4:${port}/out`),
    BlockedDestinationException,
    /\(deny, 127\.0\.0\.0\/8\)/,
  ) as BlockedDestinationException;
  assert.equal(error.rule, "deny");
  assert.deepEqual(seen, ["/in"]);
});

Deno.test("IPv6 loopback: [::1] refused by default, reached when allowed, by address and by a name resolving to it", async () => {
  const { server, seen, port } = counted("::1");
  await using _ = server;
  await using refusing = guarded();
  await rejectsWith(
    refusing.get(`http://[::1]:${port}/refused`),
    BlockedDestinationException,
    /: ::1 \(loopback, ::1\/128\): GET http:\/\/\[::1\]:\d+\/refused$/,
  );
  await using allowing = guarded({
    allow: ["::1"],
    resolve: () => Promise.resolve(["::1"]),
  });
  assert.equal((await allowing.get(`http://[::1]:${port}/a`)).text, "ok from ::1");
  assert.equal(
    (await allowing.get(`http://fetchline-test.invalid:${port}/b`)).text,
    "ok from ::1",
  );
  assert.deepEqual(seen, ["/a", "/b"]);
});
