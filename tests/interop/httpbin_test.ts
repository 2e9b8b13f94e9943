// Interop with a real server written by others: httpbin echoes
// what it received, so each step compares what the client meant to send
// with what arrived. One httpbin serves every step; `deno task
// test:interop` runs this file, the main test task does not.

import assert from "node:assert/strict";
import {
  BasicAuthHook,
  HttpClient,
  HttpClientConfigBuilder,
  TimeoutException,
  TokenAuthHook,
  TokenManager,
} from "../../mod.ts";
import { TokenData } from "../../config.ts";
import { rejectsWith } from "../helpers.ts";
import { startHttpbin } from "./httpbin_server.ts";

type Echo = {
  args: Record<string, string | string[]>;
  headers: Record<string, string>;
  url: string;
  data: string;
  json: unknown;
  form: Record<string, string | string[]>;
  files: Record<string, string>;
};

const UPLOAD = new URL("./upload.txt", import.meta.url).pathname;

Deno.test("HttpClient interoperates with httpbin", async (t) => {
  await using httpbin = await startHttpbin();
  // One attempt per call: these steps are about what crosses the wire.
  const config = () =>
    new HttpClientConfigBuilder().withBaseUrl(httpbin.url).withRetry({ maxRetries: 0 });
  await using client = new HttpClient(config().build());

  await t.step("GET /get receives the params in order and the headers", async () => {
    const response = await client.get("/get", {
      params: { q: "a b&c", tag: ["x", "y"], n: 2, skipped: null },
      headers: { "X-Custom": "v1", Accept: "application/json" },
    });
    const echo = response.json<Echo>();
    assert.deepEqual(echo.args, { q: "a b&c", tag: ["x", "y"], n: "2" });
    assert.equal(echo.headers["X-Custom"], "v1");
    assert.equal(echo.url, `${httpbin.url}/get?q=a+b%26c&tag=x&tag=y&n=2`);
    assert.equal(response.url, echo.url);
  });

  await t.step("POST /post receives JSON byte for byte", async () => {
    const echo = (await client.post("/post", { jsonData: { name: "Zoë", ids: [1, 2] } })).json<
      Echo
    >();
    assert.equal(echo.data, '{"name": "Zoë", "ids": [1, 2]}');
    assert.deepEqual(echo.json, { name: "Zoë", ids: [1, 2] });
    assert.equal(echo.headers["Content-Type"], "application/json");
  });

  await t.step("POST /post receives a form", async () => {
    const echo = (await client.post("/post", { data: { user: "a b", n: 3, sym: "&=" } })).json<
      Echo
    >();
    assert.deepEqual(echo.form, { user: "a b", n: "3", sym: "&=" });
    assert.equal(echo.headers["Content-Type"], "application/x-www-form-urlencoded");
  });

  await t.step("POST /post receives multipart files and the fields beside them", async () => {
    const response = await client.post("/post", {
      data: { note: "@not-a-file" },
      files: {
        blob: new Blob(["blob bytes"]),
        bytes: new TextEncoder().encode("raw"),
        disk: UPLOAD,
      },
    });
    const echo = response.json<Echo>();
    assert.deepEqual(echo.form, { note: "@not-a-file" });
    assert.deepEqual(echo.files, {
      blob: "blob bytes",
      bytes: "raw",
      disk: await Deno.readTextFile(UPLOAD),
    });
    assert.match(echo.headers["Content-Type"] ?? "", /^multipart\/form-data; boundary=/);
  });

  await t.step("PUT /put, PATCH /patch and DELETE /delete receive their bodies", async () => {
    for (const method of ["put", "patch", "delete"] as const) {
      const response = await client[method](`/${method}`, { jsonData: { method } });
      assert.equal(response.statusCode, 200, method);
      assert.deepEqual(response.json<Echo>().json, { method });
    }
  });

  await t.step("/status/<code> comes back as a response for every 2xx, 4xx and 5xx", async () => {
    const codes = [200, 201, 202, 204, 400, 401, 403, 404, 405, 418, 429, 500, 502, 503, 504];
    for (const code of codes) {
      const response = await client.get(`/status/${code}`);
      assert.equal(response.statusCode, code);
      assert.equal(response.isSuccess, code < 300);
      assert.equal(response.isClientError, code >= 400 && code < 500);
      assert.equal(response.isServerError, code >= 500);
    }
  });

  await t.step("/status/<code> comes back as a 3xx response when redirects are off", async () => {
    await using manual = new HttpClient(config().withMaxRedirects(0).build());
    for (const code of [301, 302, 303, 304, 307]) {
      const response = await manual.get(`/status/${code}`);
      assert.equal(response.statusCode, code);
      if (code !== 304) assert.equal(response.header("location"), "/redirect/1");
    }
  });

  await t.step("/redirect/<n> and /absolute-redirect/<n> are followed to /get", async () => {
    for (const path of ["/redirect/3", "/absolute-redirect/3", "/redirect/2?absolute=true"]) {
      const response = await client.get(path);
      assert.equal(response.statusCode, 200, path);
      assert.equal(response.url, `${httpbin.url}/get`, path);
    }
  });

  await t.step(
    "/redirect-to turns POST into GET on 302 and keeps it with its body on 307",
    async () => {
      const moved = await client.post("/redirect-to", { params: { url: "/get" }, jsonData: {} });
      assert.equal(moved.url, `${httpbin.url}/get`);
      const kept = await client.post("/redirect-to", {
        params: { url: "/post", status_code: 307 },
        jsonData: { kept: true },
      });
      assert.equal(kept.url, `${httpbin.url}/post`);
      assert.deepEqual(kept.json<Echo>().json, { kept: true });
    },
  );

  await t.step("/basic-auth accepts the right credentials and refuses wrong ones", async () => {
    await using basic = new HttpClient(
      config().withAuthHook(new BasicAuthHook("ada", "pä:ss")).build(),
    );
    const ok = await basic.get("/basic-auth/ada/pä:ss");
    assert.deepEqual(ok.json(), { authenticated: true, user: "ada" });
    assert.equal((await client.get("/basic-auth/ada/pw", { auth: ["ada", "pw"] })).statusCode, 200);
    assert.equal((await client.get("/basic-auth/ada/pw", { auth: ["ada", "no"] })).statusCode, 401);
  });

  await t.step(
    "/bearer accepts the token of TokenAuthHook and refuses a call without",
    async () => {
      const manager = new TokenManager([{
        name: "static",
        fetch: () => Promise.resolve(new TokenData({ accessToken: "t0k3n-interop" })),
      }]);
      const config = new HttpClientConfigBuilder().withBaseUrl(httpbin.url)
        .withAuthHook(new TokenAuthHook(manager));
      await using bearer = new HttpClient(config.build());
      assert.deepEqual((await bearer.get("/bearer")).json(), {
        authenticated: true,
        token: "t0k3n-interop",
      });
      const refused = await client.get("/bearer");
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.header("www-authenticate"), "Bearer");
    },
  );

  await t.step(
    "/delay/<n> longer than the timeout is a TimeoutException; shorter is a response",
    async () => {
      await rejectsWith(
        client.get("/delay/3", { timeout: 0.5 }),
        TimeoutException,
        /^Request timed out after 0\.5 s: GET http:\/\/127\.0\.0\.1:\d+\/delay\/3$/,
      );
      assert.equal((await client.get("/delay/1", { timeout: 5 })).statusCode, 200);
    },
  );

  await t.step("/gzip arrives decoded", async () => {
    const response = await client.get("/gzip");
    assert.equal(response.json<{ gzipped: boolean }>().gzipped, true);
  });

  // Deno's fetch decodes only gzip and br: the Deno transport inflates
  // httpbin's unasked-for deflate itself.
  await t.step("/deflate arrives decoded", async () => {
    const response = await client.get("/deflate");
    assert.equal(response.json<{ deflated: boolean }>().deflated, true);
  });

  await t.step("/encoding/utf8 and a UTF-8 body from /base64 decode as UTF-8", async () => {
    // Debian's package ships a one-line stand-in for the demo page (dfsg):
    // the charset is what there is to check there.
    const page = await client.get("/encoding/utf8");
    assert.match(page.header("content-type") ?? "", /charset=utf-8/i);
    assert.ok(page.text.length > 0 && !page.text.includes("\uFFFD"));
    const text = "∮ E⋅da = Q, Σὲ γνωρίζω, ﾊﾝｶｸ";
    const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(text)))
      .replaceAll("+", "-").replaceAll("/", "_");
    const response = await client.get(`/base64/${base64}`);
    assert.match(response.header("content-type") ?? "", /charset=utf-8/i);
    assert.equal(response.text, text);
  });

  await t.step("/response-headers sets the headers asked for, repeated ones joined", async () => {
    const response = await client.get("/response-headers", {
      params: { "X-Single": "one", "X-Multi": ["a", "b"] },
    });
    assert.equal(response.header("x-single"), "one");
    assert.equal(response.header("X-MULTI"), "a, b");
  });

  await t.step("/bytes/<n> returns exactly n bytes", async () => {
    for (const n of [0, 1, 1024, 100 * 1024]) {
      const response = await client.get(`/bytes/${n}`);
      assert.equal(response.content.length, n);
      assert.equal(response.header("content-type"), "application/octet-stream");
    }
  });
});
