// Options and init objects are checked whole: a key the library does not know
// (a JavaScript caller's typo) and a raw body of another type or beside
// another body are a TypeError naming them, before anything is sent.

import assert from "node:assert/strict";
import { HttpRequest, type HttpRequestInit, type RequestOptions } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { countingClient, rejectsWith, throwsAtOnce } from "./helpers.ts";

const INIT_KEYS = "headers, params, data, jsonData, files, body, timeout, auth";

Deno.test("new HttpRequest() refuses an init key it does not know, naming it", () => {
  for (const key of ["bdy", "json", "signal", "Body", "query"]) {
    throwsAtOnce(
      () => new HttpRequest("POST", "/x", { [key]: "v" } as HttpRequestInit),
      TypeError,
      `Invalid init: unknown key "${key}" (known: ${INIT_KEYS}, method, url)`,
    );
  }
  throwsAtOnce(
    () => new HttpRequest("POST", "/x", null as unknown as HttpRequestInit),
    TypeError,
    "Invalid init: expected an object, got null",
  );
  // Another request's toObject() is an init: its method and URL give way to the arguments.
  const other = new HttpRequest("PUT", "/a", { body: "x", timeout: 2 });
  const copy = new HttpRequest("POST", "/b", other.toObject());
  assert.deepEqual([copy.method, copy.url, copy.body, copy.timeout], ["POST", "/b", "x", 2]);
});

Deno.test("HttpRequest.with() refuses a change it does not know, naming it", () => {
  const request = new HttpRequest("POST", "/x");
  throwsAtOnce(
    () => request.with({ bdy: "x" } as HttpRequestInit),
    TypeError,
    /^Invalid changes: unknown key "bdy" \(known: /,
  );
});

Deno.test("HttpClient refuses a call option it does not know, naming it, and sends nothing", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  await using _ = client;
  const known =
    `${INIT_KEYS}, signal, readTimeout, totalTimeout, stream, onUploadProgress, onDownloadProgress`;
  for (const key of ["bdy", "json", "method", "redirect"]) {
    await rejectsWith(
      client.post("/x", { [key]: "v" } as RequestOptions),
      TypeError,
      new RegExp(`^Invalid options: unknown key "${key}" \\(known: ${known}\\)$`),
    );
  }
  const request = new HttpRequest("POST", "/x", { body: "x" });
  await rejectsWith(
    client.request(request, { sigal: AbortSignal.timeout(1000) } as never),
    TypeError,
    /^Invalid options: unknown key "sigal" \(known: signal, readTimeout, totalTimeout, stream, onUploadProgress, onDownloadProgress\)$/,
  );
  await rejectsWith(
    client.request(request, { body: "y" } as never),
    TypeError,
    /^Invalid options: unknown key "body"/,
  );
  assert.deepEqual([attempts, server.requests.length], [[], 0]);
  // The known ones pass: a signal goes to the call, the rest to the request.
  const controller = new AbortController();
  const response = await client.post("/echo", { body: "ok", signal: controller.signal });
  assert.equal(response.json<{ body: string }>().body, "ok");
});

Deno.test("HttpRequest refuses a raw body of another type with a TypeError naming body", () => {
  const bad: [unknown, string][] = [
    [42, "number"],
    [null, "null"],
    [{ a: 1 }, "Object"],
    [[1, 2], "an array"],
    [new DataView(new ArrayBuffer(1)), "DataView"],
    [new Uint16Array(1), "Uint16Array"],
    [new URLSearchParams("a=1"), "URLSearchParams"],
  ];
  for (const [body, type] of bad) {
    throwsAtOnce(
      () => new HttpRequest("POST", "/x", { body: body as string }),
      TypeError,
      `Invalid body: expected a string, Uint8Array, ArrayBuffer, Blob or ReadableStream, got ${type}`,
    );
  }
});

Deno.test("HttpRequest refuses a raw body beside another body, or on GET and HEAD", () => {
  const pairs: [HttpRequestInit, string][] = [
    [{ body: "x", data: { a: 1 } }, "Invalid body: give either body or data, not both"],
    [{ body: "x", jsonData: 1 }, "Invalid body: give either body or jsonData, not both"],
    [{ body: "x", files: { f: "/p" } }, "Invalid body: files go with data only, not with body"],
    [
      { jsonData: 1, files: { f: "/p" } },
      "Invalid body: files go with data only, not with jsonData",
    ],
  ];
  for (const [init, message] of pairs) {
    throwsAtOnce(() => new HttpRequest("POST", "/x", init), TypeError, message);
  }
  for (const method of ["GET", "HEAD"]) {
    throwsAtOnce(
      () => new HttpRequest(method, "/x", { body: "" }),
      TypeError,
      `Invalid body: a ${method} request cannot have body, data, jsonData or files`,
    );
  }
  throwsAtOnce(
    () => new HttpRequest("PUT", "/x", { body: "x" }).with({ method: "GET" }),
    TypeError,
    /a GET request cannot have body/,
  );
});
