// Typed streams (API.md "Streamed responses"): events({ schema, until,
// onInvalid }) and lines({ schema, onInvalid }) with the validators users
// have, zod and valibot, against a real server. What every runtime shares
// is in tests/shared/streams.mjs.

import assert from "node:assert/strict";
import * as v from "valibot";
import { z } from "zod";
import {
  EventStreamException,
  HttpClient,
  HttpClientConfigBuilder,
  ResponseParseException,
  type StandardSchemaV1,
} from "../mod.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { rejectsWith } from "./helpers.ts";

const SSE = { "content-type": "text/event-stream" };
const ZodChunk = z.object({ delta: z.string() });
const ValibotChunk = v.object({ delta: v.string() });

/** A client of `server` with no retries. */
function clientOf(server: FixtureServer): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withRetry({ maxRetries: 0 }).build(),
  );
}

/** A route streaming `pieces`, then holding the body open until the client cancels it (told by `cancelled`). */
function heldRoute(server: FixtureServer, path: string, pieces: string[], headers = SSE) {
  let cancelled!: () => void;
  const gone = new Promise<void>((resolve) => cancelled = resolve);
  server.route(path, () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      },
      cancel: () => cancelled(),
    });
    return new Response(body, { headers });
  });
  return gone;
}

const LLM_CHUNKS = [
  'data: {"delta": "Hel"}\n\n',
  'data: {"delta": "lo"}\n\n',
  "data: [DONE]\n\n",
];

for (const [vendor, schema] of [["zod", ZodChunk], ["valibot", ValibotChunk]] as const) {
  Deno.test(`events({ schema: ${vendor}, until }) yields typed data and ends at [DONE], cancelling the body`, async () => {
    await using server = startFixtureServer();
    const cancelled = heldRoute(server, "/chat", LLM_CHUNKS);
    await using client = clientOf(server);
    await using response = await client.stream("POST", "/chat");
    let answer = "";
    for await (const event of response.events({ schema, until: (e) => e.data === "[DONE]" })) {
      const delta: string = event.data.delta;
      answer += delta;
    }
    assert.equal(answer, "Hello");
    await cancelled;
  });

  Deno.test(`events({ schema: ${vendor} }): an event that does not match is a ResponseParseException naming its index, carrying the issues`, async () => {
    await using server = startFixtureServer();
    server.route("/chat", () =>
      new Response(
        'data: {"delta": "a"}\n\ndata: {"delta": 2, "token": "sk-secret"}\n\ndata: {"delta": "c"}\n\n',
        { headers: SSE },
      ));
    await using client = clientOf(server);
    await using response = await client.stream("GET", "/chat");
    const seen: string[] = [];
    const error = await rejectsWith(
      (async () => {
        for await (const event of response.events({ schema })) seen.push(event.data.delta);
      })(),
      ResponseParseException,
      /^Event at index 1 of the stream does not match the schema \(1 issue: delta\): GET http:\/\/127\.0\.0\.1:\d+\/chat \(status 200\)$/,
    ) as ResponseParseException;
    assert.deepEqual(seen, ["a"]);
    assert.equal(error.issues?.length, 1);
    assert.deepEqual(error.issues?.[0]?.path?.map((p) => typeof p === "object" ? p.key : p), [
      "delta",
    ]);
    assert.ok(!JSON.stringify(error).includes("sk-secret"), "the item's values stay out of views");
    assert.ok(!error.message.includes("sk-secret"));
  });

  Deno.test(`lines({ schema: ${vendor}, onInvalid: "skip" }) reads NDJSON, passing over the lines that fail`, async () => {
    await using server = startFixtureServer();
    server.route(
      "/items",
      () =>
        new Response('{"delta": "a"}\r\n{"delta": 1}\n[oops\n\n{"delta": "b"}', {
          headers: { "content-type": "application/x-ndjson" },
        }),
    );
    await using client = clientOf(server);
    await using response = await client.stream("GET", "/items");
    const items: { delta: string }[] = await Array.fromAsync(
      response.lines({ schema, onInvalid: "skip" }),
    );
    assert.deepEqual(items, [{ delta: "a" }, { delta: "b" }]);
  });
}

Deno.test("lines({ schema }): a line that is not JSON is a ResponseParseException naming its index, without quoting it", async () => {
  await using server = startFixtureServer();
  server.route("/items", () => new Response('{"delta": "a"}\ntoken=sk-secret\n'));
  await using client = clientOf(server);
  await using response = await client.stream("GET", "/items");
  const error = await rejectsWith(
    Array.fromAsync(response.lines({ schema: ZodChunk })),
    ResponseParseException,
    /^Line at index 1 of the stream is not valid JSON: GET http:\/\/127\.0\.0\.1:\d+\/items \(status 200\)$/,
  ) as ResponseParseException;
  assert.equal(error.issues, undefined);
  // The parser's message quotes the line: views show the cause by its class only.
  assert.ok(!Deno.inspect(error).includes("sk-secret"), Deno.inspect(error));
  assert.ok(!JSON.stringify(error).includes("sk-secret"));
});

Deno.test("A failing item carries at most 20 issues; its message counts them all", async () => {
  await using server = startFixtureServer();
  const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
  server.route("/items", () => new Response(`${JSON.stringify(many)}\n`));
  const strict = z.object(
    Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, z.string()])),
  );
  await using client = clientOf(server);
  await using response = await client.stream("GET", "/items");
  const error = await rejectsWith(
    Array.fromAsync(response.lines({ schema: strict })),
    ResponseParseException,
    /\(30 issues: k0, k1, k2, 27 more\)/,
  ) as ResponseParseException;
  assert.equal(error.issues?.length, 20);
});

Deno.test("A typed stream takes an asynchronous validator: the loop awaits it", async () => {
  await using server = startFixtureServer();
  server.route("/items", () => new Response('{"delta": "a"}\n{"delta": "b"}\n'));
  const slow = z.object({ delta: z.string() }).refine(async (chunk) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return chunk.delta !== "b";
  });
  await using client = clientOf(server);
  await using response = await client.stream("GET", "/items");
  const seen: string[] = [];
  await rejectsWith(
    (async () => {
      for await (const item of response.lines({ schema: slow })) seen.push(item.delta);
    })(),
    ResponseParseException,
    /^Line at index 1 of the stream does not match the schema/,
  );
  assert.deepEqual(seen, ["a"]);
});

Deno.test("events({ until }) without a schema yields the events as received, up to the sentinel", async () => {
  await using server = startFixtureServer();
  const cancelled = heldRoute(server, "/chat", LLM_CHUNKS);
  await using client = clientOf(server);
  await using response = await client.stream("GET", "/chat");
  const data = (await Array.fromAsync(response.events({ until: (e) => e.data === "[DONE]" })))
    .map((event) => event.data);
  assert.deepEqual(data, ['{"delta": "Hel"}', '{"delta": "lo"}']);
  await cancelled;
});

Deno.test("Typed streams refuse bad options with a TypeError naming the field, before taking the body", async () => {
  await using server = startFixtureServer();
  server.route("/chat", () => new Response("data: {}\n\n", { headers: SSE }));
  await using client = clientOf(server);
  await using response = await client.stream("GET", "/chat");
  const cases: [() => unknown, RegExp][] = [
    [() => response.lines({} as never), /^Invalid schema: expected a Standard Schema validator/],
    [() => response.events({ schema: {} as StandardSchemaV1 }), /^Invalid schema: /],
    [
      () => response.events({ schema: ZodChunk, onInvalid: "drop" as never }),
      /^Invalid onInvalid: expected "throw" or "skip", got "drop"$/,
    ],
    [() => response.events({ until: true as never }), /^Invalid until: expected a function/],
    [
      () => response.lines({ schema: ZodChunk, until: () => true } as never),
      /^Invalid options: unknown key "until" \(known: schema, onInvalid\)$/,
    ],
    [
      () => response.events({ onInvalid: "skip" } as never),
      /^Invalid onInvalid: it needs a schema$/,
    ],
  ];
  for (const [call, message] of cases) {
    assert.throws(call, (error: unknown) => {
      assert.ok(error instanceof TypeError, `got ${error}`);
      assert.match(error.message, message);
      return true;
    });
  }
  // The body was not taken: it reads as usual.
  assert.deepEqual((await Array.fromAsync(response.events({ schema: z.object({}) }))).length, 1);
});

Deno.test("A typed stream of a 404 throws EventStreamException at the call, as events() does", async () => {
  await using server = startFixtureServer();
  await using client = clientOf(server);
  await using response = await client.stream("GET", "/status/404");
  assert.throws(() => response.events({ schema: ZodChunk }), EventStreamException);
});
