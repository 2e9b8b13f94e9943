// HarRecorder and MockTransport.fromHar on Deno: a recorded session
// validates against the HAR 1.2 JSON schema; its replay gives the same bytes
// and opens no socket (the sanitizers check each test, and the replay runs
// after the server closed); no secret of the calls is in the HAR text, and
// `maskSecrets: false` records them; a body past maxBodyBytes is cut and
// marked, and costs the recorder memory bounded by maxBodyBytes (a child
// process measures its heap: tests/har_memory_child.ts); a recording of
// Chromium's (tests/fixtures/chromium.har, made by
// scripts/record_chromium_har.ts) replays; bad input is named. The same
// behaviour on every runtime is in the shared suite (tests/shared/har.mjs).

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, ResponseNotReadException } from "../mod.ts";
import { HarRecorder } from "../har.ts";
import { MockTransport, UnmatchedRequestException } from "../testing.ts";
import { FETCHLINE_VERSION } from "../src/har/recorder.ts";
import { harErrors } from "./node/har_schema.mjs";

const SECRETS = [
  "tok-SECRET-1",
  "key-SECRET-2",
  "qtok-SECRET-3",
  "pw-SECRET-4",
  "ck-SECRET-5",
  "ui-SECRET-8",
];

function serve(handler: (request: Request) => Response | Promise<Response>) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
}

function client(middleware: HarRecorder, baseUrl: string) {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(baseUrl).withRetry({ maxRetries: 0 })
      .withMiddleware(middleware).build(),
  );
}

/** A session against a local server, every kind of secret sent; the server closed after it. */
async function session(options: ConstructorParameters<typeof HarRecorder>[0] = {}) {
  const recorder = new HarRecorder(options);
  const bodies: Uint8Array[] = [];
  let url: string;
  {
    await using server = serve(async (request) => {
      const { pathname } = new URL(request.url);
      await request.arrayBuffer();
      if (pathname === "/bin") {
        const bytes = Uint8Array.from({ length: 300 }, (_, i) => i % 256);
        return new Response(bytes, { headers: { "content-type": "application/octet-stream" } });
      }
      if (pathname === "/redirect") {
        return new Response(null, { status: 302, headers: { location: "/json" } });
      }
      return Response.json({ ok: true, path: pathname }, {
        headers: { "set-cookie": "sid=ck-SECRET-5; Path=/; HttpOnly" },
      });
    });
    url = `http://127.0.0.1:${server.addr.port}`;
    await using http = client(recorder, url);
    const responses = [
      await http.get("/json?token=qtok-SECRET-3", {
        headers: {
          Authorization: "Bearer tok-SECRET-1",
          "X-API-Key": "key-SECRET-2",
          Cookie: "a=ck-SECRET-5",
        },
      }),
      await http.post("/json", { jsonData: { user: "ada", nested: { password: "pw-SECRET-4" } } }),
      await http.get(`http://ada:ui-SECRET-8@127.0.0.1:${server.addr.port}/json`),
      await http.get("/bin"),
      await http.get("/redirect"),
    ];
    for (const response of responses) bodies.push(response.content);
  }
  return { recorder, bodies, url };
}

Deno.test("a recorded session validates against the HAR 1.2 JSON schema", async () => {
  const { recorder } = await session();
  const har = recorder.toHar();
  assert.deepEqual(harErrors(har), []);
  assert.equal(har.log.creator.version, FETCHLINE_VERSION);
  // One entry an exchange: the redirect's two hops are two.
  assert.equal(har.log.entries.length, 6);
  assert.equal(har.log.entries[4]?.response.redirectURL, "/json");
});

Deno.test("the HAR's creator version is the package's", async () => {
  const { version } = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.equal(FETCHLINE_VERSION, version);
});

Deno.test("no secret of the recorded calls is in the HAR text; maskSecrets: false records them", async () => {
  const masked = JSON.stringify((await session()).recorder);
  for (const secret of SECRETS) assert.ok(!masked.includes(secret), secret);
  const open = (await session({ maskSecrets: false })).recorder.toHar();
  // User-info is sent as Basic credentials: recorded as that header.
  const [, , userInfo] = open.log.entries;
  const basic = userInfo!.request.headers.find(({ name }) => name === "authorization")!.value;
  assert.equal(atob(basic.slice("Basic ".length)), "ada:ui-SECRET-8");
  const text = JSON.stringify(open);
  for (const secret of SECRETS.slice(0, -1)) assert.ok(text.includes(secret), secret);
});

Deno.test("a response body or header that quotes back a credential the call sent is masked in the HAR", async () => {
  const recorder = new HarRecorder();
  await using server = serve((request) => {
    const url = new URL(request.url);
    const said = `key ${request.headers.get("x-api-key")} for ${url.searchParams.get("token")}`;
    if (url.pathname === "/text") return new Response(said);
    if (url.pathname === "/form") {
      const type = "application/x-www-form-urlencoded";
      return new Response(`said=${encodeURIComponent(said)}`, {
        headers: { "content-type": type },
      });
    }
    return Response.json({ echo: said }, { headers: { "x-echo": said } });
  });
  await using http = client(recorder, `http://127.0.0.1:${server.addr.port}`);
  for (const path of ["/text", "/json", "/form"]) {
    await http.get(`${path}?token=qtok-SECRET-3`, { headers: { "X-API-Key": "key-SECRET-2" } });
  }
  const har = recorder.toHar();
  const text = JSON.stringify(har);
  for (const secret of ["key-SECRET-2", "qtok-SECRET-3"]) assert.ok(!text.includes(secret), secret);
  const [plain, json, form] = har.log.entries.map((entry) => entry.response.content.text);
  assert.equal(plain, "key *** for ***");
  assert.deepEqual(JSON.parse(json!), { echo: "key *** for ***" });
  const echoed = har.log.entries[1]!.response.headers.find(({ name }) => name === "x-echo");
  assert.equal(echoed?.value, "key *** for ***");
  assert.equal(new URLSearchParams(form).get("said"), "key *** for ***");
});

Deno.test("sensitiveKeys name JSON fields to mask too, in request and response bodies", async () => {
  const recorder = new HarRecorder({ sensitiveKeys: ["Tenant"] });
  await using server = serve(async (request) => Response.json(await request.json()));
  await using http = client(recorder, `http://127.0.0.1:${server.addr.port}`);
  await http.post("/echo", { jsonData: { user: "ada", org: { tenant: "tn-SECRET-9" } } });
  const [entry] = recorder.toHar().log.entries;
  assert.ok(!JSON.stringify(recorder).includes("tn-SECRET-9"));
  const masked = { user: "ada", org: { tenant: "***" } };
  assert.deepEqual(JSON.parse(entry!.request.postData!.text!), masked);
  assert.deepEqual(JSON.parse(entry!.response.content.text!), masked);
});

Deno.test("record → replay gives byte-identical responses with no server and no socket", async () => {
  const { recorder, bodies, url } = await session({ maskSecrets: false });
  const mock = MockTransport.fromHar(JSON.stringify(recorder.toHar()));
  await using http = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(url).withFetch(mock.fetch).build(),
  );
  const replayed = [
    await http.get("/json?token=qtok-SECRET-3"),
    await http.post("/json", { jsonData: { user: "ada", nested: { password: "pw-SECRET-4" } } }),
    await http.get(`${url.replace("//", "//ada:ui-SECRET-8@")}/json`),
    await http.get("/bin"),
    await http.get("/redirect"),
  ];
  assert.deepEqual(replayed.map((response) => response.content), bodies);
  await assert.rejects(http.get("/bin"), UnmatchedRequestException);
});

Deno.test("a masked recording replays requests whose secrets differ (*** matches any value)", async () => {
  const { recorder, url } = await session();
  const mock = MockTransport.fromHar(recorder.toHar(), { repeat: true });
  await using http = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(url).withFetch(mock.fetch).build(),
  );
  assert.equal((await http.get("/json?token=other")).statusCode, 200);
  const posted = await http.post("/json", { jsonData: { user: "ada", nested: { password: "x" } } });
  assert.deepEqual(posted.json(), { ok: true, path: "/json" });
  await assert.rejects(
    http.post("/json", { jsonData: { user: "bob", nested: { password: "x" } } }),
    UnmatchedRequestException,
  );
  // repeat: the last recorded answer again.
  assert.equal((await http.get("/bin")).content.byteLength, 300);
  assert.equal((await http.get("/bin")).content.byteLength, 300);
});

Deno.test("a body past maxBodyBytes is cut and marked; bodies: false keeps sizes only", async () => {
  const cut =
    (await session({ maxBodyBytes: 100 })).recorder.toHar().log.entries[3]!.response.content;
  assert.equal(cut.size, 300);
  assert.equal(cut._truncated, true);
  assert.equal(cut.encoding, "base64");
  assert.equal(atob(cut.text!).length, 100);
  const none = (await session({ bodies: false })).recorder.toHar().log.entries[3]!.response.content;
  assert.equal(none.size, 300);
  assert.equal(none.text, undefined);
});

Deno.test("the recorder's memory for a 30 MiB body is bounded by maxBodyBytes (64 KiB), not the body's size", async () => {
  const output = await new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" run --quiet --v8-flags=--expose-gc "$1"',
      Deno.execPath(),
      new URL("./har_memory_child.ts", import.meta.url).pathname,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout).trim();
  assert.ok(output.success, `${text} ${new TextDecoder().decode(output.stderr)}`);
  const { json, text: plain, form, stream } = JSON.parse(text);
  // Generous: a copy of the body, or its parse, is 30 MiB and more.
  const bound = 3 * 64 * 1024 + 20 * 2 ** 20;
  for (const [name, { growth }] of Object.entries({ json, plain, form, stream })) {
    assert.ok(growth < bound, `${name}: the heap grew by ${(growth / 2 ** 20).toFixed(1)} MiB`);
  }
  // A masked JSON body past the limit is left out (a cut one cannot be masked), and marked.
  assert.equal(json.postData.text, undefined);
  assert.equal(json.postData._truncated, true);
  assert.match(json.postData.comment, /^not recorded: /);
  assert.equal(plain.postData.text, "y".repeat(64 * 1024));
  assert.equal(plain.postData._truncated, true);
  assert.match(form.postData.text, /^password=\*\*\*&note=z+$/);
  assert.equal(stream.content.text, undefined);
  assert.equal(stream.content._truncated, true);
  assert.ok(stream.content.size >= 30 * 2 ** 20);
});

Deno.test("a form body (data) past maxBodyBytes is cut and marked, its fields masked", async () => {
  const recorder = new HarRecorder({ maxBodyBytes: 100 });
  await using server = serve(async (request) => new Response(await request.text()));
  await using http = client(recorder, `http://127.0.0.1:${server.addr.port}`);
  await http.post("/form", { data: { password: "pw-SECRET-4", note: "n".repeat(500) } });
  const postData = recorder.toHar().log.entries[0]!.request.postData!;
  assert.equal(postData.text, `password=***&note=${"n".repeat(100 - 18)}`);
  assert.equal(postData._truncated, true);
  assert.deepEqual(postData.params?.map(({ name }) => name), ["password", "note"]);
});

Deno.test("the recorder reads no streamed body the caller does not read", async () => {
  const recorder = new HarRecorder();
  await using server = serve(() =>
    new Response(
      new ReadableStream({
        pull(controller) {
          controller.enqueue(new Uint8Array(64 * 1024));
        },
      }, { highWaterMark: 0 }),
    )
  );
  await using http = client(recorder, `http://127.0.0.1:${server.addr.port}`);
  const response = await http.stream("GET", "/");
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(recorder.toHar().log.entries[0]?.response.content.size, 0);
  // @ts-expect-error: a streamed response has no content until read
  assert.throws(() => response.content, ResponseNotReadException);
  const reader = response.body.getReader();
  const { value } = await reader.read();
  const content = recorder.toHar().log.entries[0]!.response.content;
  assert.equal(content.size, value!.byteLength);
  assert.equal(content._partial, true);
  await reader.cancel();
});

Deno.test("a streamed body the caller cancels ends its entry's timing there", async () => {
  const recorder = new HarRecorder();
  await using server = serve(() =>
    new Response(
      new ReadableStream({
        pull(controller) {
          controller.enqueue(new Uint8Array(1024));
        },
      }, { highWaterMark: 0 }),
    )
  );
  await using http = client(recorder, `http://127.0.0.1:${server.addr.port}`);
  const response = await http.stream("GET", "/");
  const reader = response.body.getReader();
  await reader.read();
  await reader.cancel();
  const time = () => recorder.toHar().log.entries[0]!.time;
  const before = time();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(time(), before);
  assert.equal(recorder.toHar().log.entries[0]!.response.content._partial, true);
});

Deno.test("a HAR exported from Chromium's DevTools protocol replays through fromHar", async () => {
  const har = JSON.parse(
    await Deno.readTextFile(new URL("./fixtures/chromium.har", import.meta.url)),
  );
  assert.deepEqual(harErrors(har), []);
  const origin = new URL(har.log.entries[0].request.url).origin;
  const mock = MockTransport.fromHar(har);
  await using http = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(origin).withFetch(mock.fetch).build(),
  );
  assert.deepEqual((await http.get("/api/items?page=2")).json(), { items: [1, 2, 3], page: 2 });
  const created = await http.post("/api/items", { jsonData: { name: "Ada" } });
  assert.equal(created.statusCode, 201);
  assert.deepEqual(created.json(), { created: { name: "Ada" } });
  assert.equal((await http.get("/text")).text, "Gzipped text, ".repeat(40));
  const png = await http.get("/pixel.png");
  assert.deepEqual([...png.content.subarray(1, 4)], [0x50, 0x4e, 0x47]);
  assert.equal((await http.get("/missing")).statusCode, 404);
  // The redirect's hop and its target, each from its own entry.
  assert.deepEqual((await http.get("/moved")).json(), { items: [1, 2, 3], page: 2 });
});

Deno.test("bad input to HarRecorder and fromHar is a TypeError naming the field", () => {
  assert.throws(() => new HarRecorder({ maxBodyBytes: 0 }), /maxBodyBytes/);
  assert.throws(() => new HarRecorder({ maskSecrets: "no" as never }), /maskSecrets/);
  assert.throws(() => new HarRecorder({ bodyz: true } as never), /bodyz/);
  assert.throws(() => MockTransport.fromHar({} as never), /Invalid har/);
  assert.throws(
    () => MockTransport.fromHar({ log: { entries: [{ request: { method: "GET" } }] } } as never),
    /har\.log\.entries\[0\]\.request\.url/,
  );
  assert.throws(() => MockTransport.fromHar("{", {}), /not JSON/);
  assert.throws(
    () => MockTransport.fromHar({ log: { entries: [] } } as never, { match: ["headers"] as never }),
    /Invalid match/,
  );
});
