// NO_PROXY on the npm build reads IP addresses as Deno and curl do: an
// address or a range (`127.0.0.0/8`) names the addresses it holds, and an
// address is never matched as a name's suffix; in the environment's
// NO_PROXY and in withProxy()'s noProxy alike. A request's own
// Proxy-Authorization header is refused through a proxy, and a proxy's 407
// to a forwarded http request fails the call, as on Deno; so does the
// environment's proxy, unreachable or answering 407, named in the error.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
} from "@fetchline/fetchline";
import { startServer } from "./server.mjs";
import { freePort, runNodeChild, startTinyproxy } from "./proxy_server.mjs";

const CHILD = (url) => `
  import { HttpClient } from "@fetchline/fetchline";
  const http = new HttpClient();
  try {
    console.log("status", (await http.get(${JSON.stringify(url)})).statusCode);
  } catch (error) {
    console.log("error", error.message);
  } finally {
    http.close();
  }
`;

test("NO_PROXY and noProxy name an IP address by its value or a range, never by a suffix", async () => {
  const proxy = await startTinyproxy();
  const server = await startServer();
  const send = async (noProxy, path) => {
    const config = new HttpClientConfigBuilder().withProxy(proxy.url, { noProxy })
      .withRetry({ maxRetries: 0 }).build();
    const http = new HttpClient(config);
    try {
      assert.equal((await http.get(`${server.url}${path}`)).statusCode, 200);
    } finally {
      http.close();
    }
  };
  try {
    const env = { HTTP_PROXY: proxy.url, NO_PROXY: "10.0.0.0/8, 127.0.0.0/8" };
    assert.equal(await runNodeChild(CHILD(`${server.url}/env-range`), env), "status 200\n");
    await send("127.0.0.0/30", "/range");
    await send("10.0.0.0/8, ::ffff:0:0/96", "/other-ranges");
    // "0.0.1" is no domain 127.0.0.1 is under.
    await send("0.0.1", "/suffix");
    const log = proxy.log();
    for (const path of ["/env-range", "/range"]) assert.ok(!log.includes(`${path} `), log);
    assert.ok(log.includes(`GET ${server.url}/other-ranges `), log);
    assert.ok(log.includes(`GET ${server.url}/suffix `), log);
    const paths = server.requests.map((request) => request.path);
    assert.deepEqual(paths, ["/env-range", "/range", "/other-ranges", "/suffix"]);
  } finally {
    await server.close();
    await proxy.close();
  }
});

test("A request's own Proxy-Authorization header is refused through withProxy(), not retried, its value not shown", async () => {
  const proxy = await startTinyproxy();
  const server = await startServer();
  const http = new HttpClient(new HttpClientConfigBuilder().withProxy(proxy.url).build());
  const value = `Basic ${btoa("ada:s3cr-t")}`;
  try {
    let caught;
    try {
      await http.get(`${server.url}/own`, { headers: { "Proxy-Authorization": value } });
    } catch (error) {
      caught = error;
    }
    assert.equal(caught?.constructor, HttpClientException, String(caught));
    assert.match(
      caught.message,
      /^Connection failed: Proxy http:\/\/127\.0\.0\.1:\d+\/? is not sent a request's own Proxy-Authorization header: give its credentials in withProxy\(\)'s URL: GET/,
    );
    assert.ok(!caught.message.includes(value), caught.message);
    assert.deepEqual(server.requests, []);
    assert.ok(!proxy.log().includes("/own"), proxy.log());
  } finally {
    http.close();
    await server.close();
    await proxy.close();
  }
});

test("A proxy's 407 to a forwarded http request fails with a ConnectionException naming it, as on Deno", async () => {
  let asked = 0;
  const proxy = createServer((_request, response) => {
    asked++;
    response.writeHead(407, { "proxy-authenticate": 'Basic realm="proxy"' });
    response.end("Proxy credentials required\n");
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address();
  const config = new HttpClientConfigBuilder().withProxy(`http://ada:wr0ng-pass@127.0.0.1:${port}`)
    .withRetry({ maxRetries: 0 }).build();
  const http = new HttpClient(config);
  try {
    let caught;
    try {
      await http.get("http://127.0.0.1:9/x");
    } catch (error) {
      caught = error;
    }
    assert.equal(caught?.constructor, ConnectionException, String(caught));
    assert.match(
      caught.message,
      new RegExp(
        `^Connection failed: Proxy http://ada:\\*\\*\\*@127\\.0\\.0\\.1:${port}/? refused the credentials \\(407 Proxy Authentication Required\\): GET`,
      ),
    );
    assert.ok(!caught.message.includes("wr0ng-pass"), caught.message);
    assert.equal(asked, 1);
  } finally {
    http.close();
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  }
});

// A child that sends one GET without retries.
const ONCE = (url) =>
  CHILD(url).replace(
    "new HttpClient()",
    "new HttpClient(new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).build())",
  ).replace("import { HttpClient }", "import { HttpClient, HttpClientConfigBuilder }");

test("The environment's proxy, unreachable or answering 407 to a forwarded http request, is named in the error, as on Deno", async () => {
  const asked = [];
  const proxy = createServer((request, response) => {
    asked.push(request.url);
    response.writeHead(407, { "proxy-authenticate": 'Basic realm="proxy"' });
    response.end("Proxy credentials required\n");
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address();
  try {
    const target = `http://127.0.0.1:${await freePort()}/x`;
    const refused = await runNodeChild(ONCE(target), {
      HTTP_PROXY: `http://ada:wr0ng-pass@127.0.0.1:${port}`,
    });
    assert.match(
      refused,
      new RegExp(
        `^error Connection failed: Proxy http://ada:\\*\\*\\*@127\\.0\\.0\\.1:${port}/? refused the credentials \\(407 Proxy Authentication Required\\): GET ${target}\n$`,
      ),
    );
    assert.ok(!refused.includes("wr0ng-pass"), refused);
    assert.deepEqual(asked, [target]);
    const gone = await freePort();
    const unreachable = await runNodeChild(ONCE(target), {
      HTTP_PROXY: `http://ada:s3cr-t@127.0.0.1:${gone}`,
    });
    assert.match(
      unreachable,
      new RegExp(
        `^error Connection failed: Proxy http://ada:\\*\\*\\*@127\\.0\\.0\\.1:${gone}/? refused the connection: GET ${target}\n$`,
      ),
    );
    assert.ok(!unreachable.includes("s3cr"), unreachable);
  } finally {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  }
});
