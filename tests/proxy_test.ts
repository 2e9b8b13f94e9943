// withProxy() through a real tinyproxy: http forwarded in absolute form,
// https tunnelled with CONNECT, credentials sent and masked, a refusing or
// missing proxy named in the error, noProxy hosts reached directly.

import assert from "node:assert/strict";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
} from "../mod.ts";
import { freePort, startTinyproxy } from "./proxy_server.ts";
import { makeTlsMaterial } from "./tls_material.ts";
import { rejectsWith } from "./helpers.ts";

// tinyproxy takes only word characters, dots and dashes in a password: the
// URL spells the dash percent-encoded, which the client must decode.
const SECRET = "s3cr-t";
const ENCODED = "s3cr%2Dt";

function target(onRequest: (request: Request) => void = () => {}) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    onRequest(request);
    return new Response(`seen ${new URL(request.url).pathname}`);
  });
}

function client(proxy: string | null, options: { noProxy?: string } = {}, caCert?: string) {
  const builder = new HttpClientConfigBuilder().withProxy(proxy, options);
  if (caCert !== undefined) builder.withTls({ caCerts: [caCert] });
  return new HttpClient(builder.withRetry({ maxRetries: 0 }).withTimeout(10).build());
}

Deno.test("withProxy() forwards an http request through the proxy in absolute form", async () => {
  await using proxy = await startTinyproxy();
  await using server = target();
  const port = server.addr.port;
  await using http = client(proxy.url);
  const response = await http.get(`http://127.0.0.1:${port}/through?a=1`);
  assert.equal(response.text, "seen /through");
  assert.match(await proxy.log(), new RegExp(`GET http://127\\.0\\.0\\.1:${port}/through\\?a=1 `));
});

Deno.test("withProxy() tunnels https with CONNECT and sends the URL's decoded credentials", async () => {
  const tls = await makeTlsMaterial();
  await using proxy = await startTinyproxy({ auth: ["ada", SECRET] });
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.serverCert, key: tls.serverKey, onListen() {} },
    () => new Response("secure"),
  );
  const port = server.addr.port;
  // startTinyproxy allowed no port for CONNECT: tinyproxy then allows every one.
  const proxyUrl = `http://ada:${ENCODED}@127.0.0.1:${proxy.port}`;
  await using https = client(proxyUrl, {}, tls.caCert);
  const response = await https.get(`https://127.0.0.1:${port}/tls`);
  assert.equal(response.text, "secure");
  assert.match(await proxy.log(), new RegExp(`CONNECT 127\\.0\\.0\\.1:${port} `));
});

Deno.test("A proxy that refuses the credentials fails with a ConnectionException naming it, masked", async () => {
  await using proxy = await startTinyproxy({ auth: ["ada", SECRET] });
  await using https = client(`http://ada:wr0ng-pass@127.0.0.1:${proxy.port}`);
  const error = await rejectsWith(
    https.get(`https://127.0.0.1:${freePort()}/x`),
    ConnectionException,
    new RegExp(
      `Proxy http://ada:\\*\\*\\*@127\\.0\\.0\\.1:${proxy.port}/? refused the (credentials|CONNECT tunnel)`,
    ),
  );
  assert.ok(!error.message.includes("wr0ng-pass"), error.message);
  assert.ok(!JSON.stringify(error).includes("wr0ng-pass"));
  assert.ok(!Deno.inspect(error).includes("wr0ng-pass"));
});

Deno.test("A proxy that refuses the CONNECT tunnel fails with a ConnectionException naming it", async () => {
  const other = freePort();
  await using proxy = await startTinyproxy({ connectPorts: [other] });
  await using https = client(proxy.url);
  await rejectsWith(
    https.get(`https://127.0.0.1:${freePort()}/x`),
    ConnectionException,
    new RegExp(`Proxy http://127\\.0\\.0\\.1:${proxy.port}/? refused the CONNECT tunnel`),
  );
});

Deno.test("A proxy that cannot be reached fails with a ConnectionException saying it refused", async () => {
  const port = freePort();
  await using http = client(`http://ada:${ENCODED}@127.0.0.1:${port}`);
  for (const scheme of ["http", "https"]) {
    const url = `${scheme}://127.0.0.1:${freePort()}/x`;
    const error = await rejectsWith(
      http.get(url),
      ConnectionException,
      new RegExp(`Proxy http://ada:\\*\\*\\*@127\\.0\\.0\\.1:${port}/? refused the connection`),
    );
    assert.ok(!error.message.includes("s3cr"), error.message);
  }
});

Deno.test("withProxy() reaches its noProxy hosts directly, and only those", async () => {
  await using proxy = await startTinyproxy();
  const seen: string[] = [];
  await using server = target((request) => seen.push(new URL(request.url).pathname));
  const port = server.addr.port;
  await using http = client(proxy.url, { noProxy: `example.invalid, 127.0.0.1:${port}` });
  assert.equal((await http.get(`http://127.0.0.1:${port}/direct`)).text, "seen /direct");
  assert.deepEqual(seen, ["/direct"]);
  assert.ok(!(await proxy.log()).includes("/direct"), "the proxy saw no request");
  await using other = target();
  await http.get(`http://127.0.0.1:${other.addr.port}/proxied`);
  assert.match(await proxy.log(), /GET http:\/\/127\.0\.0\.1:\d+\/proxied /);
});

Deno.test("withProxy() rejects a URL that is not an http(s) origin with a TypeError naming proxy, the password masked", () => {
  const builder = new HttpClientConfigBuilder();
  for (
    const bad of [
      `ftp://ada:${SECRET}@127.0.0.1:21`,
      `socks4://ada:${SECRET}@127.0.0.1:1080`,
      `socks://ada:${SECRET}@127.0.0.1:1080`,
      `http://ada:${SECRET}@127.0.0.1:3128/path`,
      `http://ada:${SECRET}@127.0.0.1:3128/?q=1`,
      `http://ada:${SECRET}@127.0.0.1:3128#frag`,
      `http://ada:${SECRET}@[::1`,
      "127.0.0.1:3128",
      "",
    ]
  ) {
    let message = "";
    assert.throws(() => builder.withProxy(bad), (error: unknown) => {
      message = (error as Error).message;
      return error instanceof TypeError;
    });
    assert.match(message, /^Invalid proxy: /, bad);
    assert.ok(!message.includes("s3cr"), message);
  }
  assert.throws(() => builder.withProxy(3128 as unknown as string), /Invalid proxy: expected/);
  assert.throws(() => builder.withProxy("http://127.0.0.1:1", { noProxy: 1 } as never), /noProxy/);
  assert.throws(() => builder.withProxy("http://127.0.0.1:1", { bypass: "x" } as never), /bypass/);
});

Deno.test("withPool({ proxy }) is refused with a TypeError naming withProxy()", () => {
  assert.throws(
    () => new HttpClientConfigBuilder().withPool({ proxy: { url: "http://127.0.0.1:3128" } }),
    { name: "TypeError", message: /Invalid pool: proxy .*withProxy\(\)/ },
  );
});

Deno.test("A proxy's password is masked in the config, the client, console.log() and JSON.stringify()", () => {
  const config = new HttpClientConfigBuilder()
    .withProxy(`http://ada:${ENCODED}@127.0.0.1:3128`, { noProxy: "A.example" })
    .build();
  using http = new HttpClient(config);
  const texts = [
    Deno.inspect(config, { depth: 10 }),
    Deno.inspect(http, { depth: 10 }),
    Deno.inspect(config.proxy),
    JSON.stringify(config),
    JSON.stringify(http),
    JSON.stringify({ ...config.proxy }),
  ];
  for (const text of texts) {
    assert.ok(!text.includes("s3cr"), text);
    assert.ok(!text.includes(ENCODED), text);
  }
  assert.equal(JSON.parse(JSON.stringify(http)).config.proxy.url, "http://ada:***@127.0.0.1:3128");
  assert.deepEqual(config.proxy?.noProxy, ["a.example"]);
  assert.equal(config.proxy?.credentials?.password, SECRET, "decoded, kept for the proxy");
});

Deno.test("withProxy() with withFetch() is refused at build(): a custom fetch has no pool", () => {
  const builder = new HttpClientConfigBuilder().withProxy("http://127.0.0.1:3128")
    .withFetch(() => Promise.resolve(new Response()));
  assert.throws(() => builder.build(), {
    name: "TypeError",
    message: /Invalid proxy: .*withFetch/,
  });
  assert.equal(builder.withProxy(null).build().proxy, null);
});

Deno.test("A proxy's 407 to a forwarded http request fails with a ConnectionException, as a refused CONNECT does", async () => {
  let asked = 0;
  // A forward proxy that wants other credentials: tinyproxy answers an http request 401 instead.
  await using proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    asked++;
    return new Response("Proxy credentials required\n", {
      status: 407,
      headers: { "Proxy-Authenticate": 'Basic realm="proxy"' },
    });
  });
  const port = proxy.addr.port;
  await using http = client(`http://ada:wr0ng-pass@127.0.0.1:${port}`);
  const error = await rejectsWith(
    http.get(`http://127.0.0.1:${freePort()}/x`),
    ConnectionException,
    new RegExp(
      `^Connection failed: Proxy http://ada:\\*\\*\\*@127\\.0\\.0\\.1:${port}/? refused the credentials \\(407 Proxy Authentication Required\\): GET`,
    ),
  );
  assert.equal(asked, 1);
  for (const text of [error.message, JSON.stringify(error), Deno.inspect(error)]) {
    assert.ok(!text.includes("wr0ng-pass"), text);
  }
});

Deno.test("A request's own Proxy-Authorization header is refused through withProxy(): it would reach the target through a tunnel", async () => {
  const tls = await makeTlsMaterial();
  await using proxy = await startTinyproxy();
  const seen: (string | null)[] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.serverCert, key: tls.serverKey, onListen() {} },
    (request) => (seen.push(request.headers.get("proxy-authorization")), new Response("secure")),
  );
  await using https = client(proxy.url, {}, tls.caCert);
  const headers = { "Proxy-Authorization": `Basic ${btoa(`ada:${SECRET}`)}` };
  const error = await rejectsWith(
    https.get(`https://127.0.0.1:${server.addr.port}/tls`, { headers }),
    HttpClientException,
    /^Connection failed: Proxy http:\/\/127\.0\.0\.1:\d+\/? is not sent a request's own Proxy-Authorization header: give its credentials in withProxy\(\)'s URL: GET/,
  );
  assert.ok(!error.message.includes(btoa(`ada:${SECRET}`)), error.message);
  assert.deepEqual(seen, []);
  assert.ok(!(await proxy.log()).includes(`CONNECT 127.0.0.1:${server.addr.port} `));
});
