import assert from "node:assert/strict";
import fc from "fast-check";
import { events, EventStreamParser, type ServerSentEvent } from "../src/http/text_stream.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { bodyOf, cutAt, limitOf, textAndCuts } from "./chunked.ts";

const encoder = new TextEncoder();

async function eventsOf(...chunks: (string | Uint8Array)[]): Promise<ServerSentEvent[]> {
  const bytes = chunks.map((chunk) => typeof chunk === "string" ? encoder.encode(chunk) : chunk);
  return await Array.fromAsync(events(bodyOf(bytes)));
}

function message(data: string, id = "", retry?: number): ServerSentEvent {
  return { event: "message", data, id, retry };
}

Deno.test("events() joins data lines with LF and drops the last LF", async () => {
  assert.deepEqual(await eventsOf("data: a\ndata: b\ndata:\n\n"), [message("a\nb\n")]);
  assert.deepEqual(await eventsOf("data: one\n\ndata: two\n\n"), [message("one"), message("two")]);
});

Deno.test("events() reads an empty data field as an empty line of data", async () => {
  assert.deepEqual(await eventsOf("data:\n\ndata\ndata\n\ndata:test\n\n"), [
    message(""),
    message("\n"),
    message("test"),
  ]);
});

Deno.test("events() removes one space after the colon, and only one", async () => {
  assert.deepEqual(await eventsOf("data:x\n\ndata: x\n\ndata:  x\n\ndata:\tx\n\n"), [
    message("x"),
    message("x"),
    message(" x"),
    message("\tx"),
  ]);
  assert.deepEqual(await eventsOf("data: a: b\n\n"), [message("a: b")]);
});

Deno.test("events() ignores comments, unknown fields and field names in another case", async () => {
  const stream = ": hello\n:\ndata: kept\n: data: fail\nData: fail\nfoo: bar\nfoo\n\n";
  assert.deepEqual(await eventsOf(stream), [message("kept")]);
  assert.deepEqual(await eventsOf(": only a comment\n\n"), []);
  const ends = `data: a\r:\0\r\n: x\rdata: b\n:${"y".repeat(4096)}\r:\r\n\n`;
  assert.deepEqual(await eventsOf(ends), [message("a\nb")]);
});

Deno.test("events() takes a line without a colon as a field with an empty value", async () => {
  assert.deepEqual(await eventsOf("event\ndata\n\n"), [message("")]);
  assert.deepEqual(await eventsOf("id: 1\nid\ndata\n\n"), [message("", "")]);
});

Deno.test("events() sets the type from event, and resets it after every blank line", async () => {
  assert.deepEqual(await eventsOf("event: add\ndata: 1\n\ndata: 2\n\n"), [
    { event: "add", data: "1", id: "", retry: undefined },
    message("2"),
  ]);
  // A block without data dispatches nothing but still clears its type.
  assert.deepEqual(await eventsOf("event: lost\n\ndata: 3\n\n"), [message("3")]);
  assert.deepEqual(await eventsOf("event:\ndata: 4\n\n"), [message("4")]);
});

Deno.test("events() carries the last event ID over to later events, as EventSource does", async () => {
  const stream = "id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\n\ndata: d\n\n";
  assert.deepEqual(await eventsOf(stream), [
    message("a", "1"),
    message("b", "1"),
    message("c", ""),
    message("d", "2"),
  ]);
});

Deno.test("events() ignores an id that contains NUL, and keeps NUL in data", async () => {
  assert.deepEqual(await eventsOf("id: 1\ndata: a\n\nid: 2\0\ndata: b\0\n\n"), [
    message("a", "1"),
    message("b\0", "1"),
  ]);
});

Deno.test("events() takes retry only as ASCII digits, on the event whose block set it", async () => {
  assert.deepEqual(await eventsOf("retry: 1000\ndata: a\n\ndata: b\n\n"), [
    message("a", "", 1000),
    message("b"),
  ]);
  assert.deepEqual(await eventsOf("retry: 0\nretry: 007\ndata\n\n"), [message("", "", 7)]);
  for (const bogus of ["1000x", "-1", "1.5", "1e3", " 100", "", "+1", "٣", "0x10"]) {
    assert.deepEqual(await eventsOf(`retry: ${bogus}\ndata\n\n`), [message("")], bogus);
  }
  assert.deepEqual(await eventsOf("retry: 5\n\ndata\n\n"), [message("")]);
});

Deno.test("EventStreamParser keeps the ID and retry of blocks that dispatched nothing", () => {
  const parser = new EventStreamParser();
  assert.equal(parser.lastEventId, "");
  assert.equal(parser.reconnectionTime, undefined);
  assert.deepEqual(parser.push("id: 7\nretry: 3000\n\n: ping\n\nretry: x\n\n"), []);
  assert.equal(parser.lastEventId, "7");
  assert.equal(parser.reconnectionTime, 3000);
  assert.deepEqual(parser.push("data: a\n\n"), [message("a", "7")]);
});

Deno.test("EventStreamParser takes an id only at the blank line that ends its block", () => {
  const parser = new EventStreamParser();
  assert.deepEqual(parser.push("id: 1\ndata: a\n\nid: 2\ndata: b\n"), [message("a", "1")]);
  // The block with id 2 was not ended: a reconnection now must resume after 1.
  assert.equal(parser.lastEventId, "1");
  assert.deepEqual(parser.push("\n"), [message("b", "2")]);
  assert.equal(parser.lastEventId, "2");
});

Deno.test("EventStreamParser starts from a given ID, carried to events without their own", () => {
  const parser = new EventStreamParser("41");
  assert.equal(parser.lastEventId, "41");
  assert.deepEqual(parser.push("data: a\n\nid: 42\ndata: b\n\n"), [
    message("a", "41"),
    message("b", "42"),
  ]);
  assert.equal(new EventStreamParser().lastEventId, "");
});

Deno.test("events() drops one BOM opening the stream, even cut across chunks", async () => {
  const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
  assert.deepEqual(await eventsOf(bom, "data: 1\n\n"), [message("1")]);
  assert.deepEqual(await eventsOf(bom.subarray(0, 1), bom.subarray(1), "data: 1\n\n"), [
    message("1"),
  ]);
  // A second BOM is part of the first field's name, which is then unknown.
  assert.deepEqual(await eventsOf(bom, bom, "data: 1\n\ndata: 2\n\n"), [message("2")]);
  // A BOM opening a later chunk is text, not a mark.
  assert.deepEqual(await eventsOf("data: 1\ndata:", bom, "\n\n"), [message("1\n\uFEFF")]);
});

Deno.test("events() ends a line at CR, LF or CRLF", async () => {
  assert.deepEqual(await eventsOf("data: a\rdata: b\ndata: c\r\n\r"), [message("a\nb\nc")]);
  assert.deepEqual(await eventsOf("data: a\r\rdata: b\n\ndata: c\r\n\r\n"), [
    message("a"),
    message("b"),
    message("c"),
  ]);
  assert.deepEqual(await eventsOf("data: a\n\r\ndata: b\r\r"), [message("a"), message("b")]);
});

Deno.test("events() reads CRLF cut between chunks as one line end, and CR CR as two", async () => {
  assert.deepEqual(await eventsOf("data: a\r", "\ndata: b\r", "", "\n\r", "\n"), [message("a\nb")]);
  assert.deepEqual(await eventsOf("data: a\r", "\r"), [message("a")]);
});

Deno.test("EventStreamParser dispatches at a CR ending a piece, without waiting for the next", () => {
  const parser = new EventStreamParser();
  assert.deepEqual(parser.push("data: a\r"), []);
  assert.deepEqual(parser.push("\r"), [message("a")]);
  assert.deepEqual(parser.push("\ndata: b\r\n"), []);
  assert.deepEqual(parser.push("\r\n"), [message("b")]);
});

Deno.test("events() reads the stream as UTF-8, a character cut across chunks kept whole", async () => {
  const bytes = encoder.encode("data: é€😀\n\n");
  const oneByteChunks = [...bytes].map((byte) => Uint8Array.of(byte));
  assert.deepEqual(await eventsOf(...oneByteChunks), [message("é€😀")]);
  assert.deepEqual(await eventsOf(Uint8Array.of(0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a)), [
    message("\uFFFD"),
  ]);
});

Deno.test("events() drops an event the stream ends in the middle of", async () => {
  assert.deepEqual(await eventsOf("data: a\n\ndata: b\n"), [message("a")]);
  assert.deepEqual(await eventsOf("retry: 1000\ndata: a\n\nid: x\ndata: b"), [
    message("a", "", 1000),
  ]);
  assert.deepEqual(await eventsOf(""), []);
});

Deno.test("events() cancels the body when the loop is left early", async () => {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => controller.enqueue(encoder.encode("data: again\n\n")),
    cancel: () => void (cancelled = true),
  });
  for await (const event of events(body)) {
    assert.equal(event.data, "again");
    break;
  }
  assert.ok(cancelled);
});

Deno.test("events() gives the same events however the same bytes are cut into chunks", async () => {
  const alphabet = [
    "data",
    "event",
    "id",
    "retry",
    ":",
    " ",
    "\n",
    "\r",
    "\r\n",
    "12",
    "x",
    "\0",
    "é",
    "😀",
    "\uFEFF",
  ];
  await fc.assert(
    fc.asyncProperty(textAndCuts(alphabet), async ({ bytes, cuts }) => {
      assert.deepEqual(await eventsOf(...cutAt(bytes, cuts)), await eventsOf(bytes));
    }),
    { numRuns: 300 },
  );
});

Deno.test("events() yields each event as its blank line arrives over a real connection", async () => {
  await using server = startFixtureServer();
  const { promise: firstRead, resolve: readFirst } = Promise.withResolvers<void>();
  // A parser that waited for the end of the body would see the first event
  // only after this bound let the server write the second.
  const bound = setTimeout(readFirst, 5000);
  let secondWritten = false;
  server.route("/events", () =>
    new Response(
      new ReadableStream({
        async start(controller) {
          controller.enqueue(encoder.encode("id: 1\ndata: first\n\n"));
          await firstRead;
          secondWritten = true;
          controller.enqueue(encoder.encode("data: second\n\n"));
          controller.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    ));
  const response = await fetch(`${server.url}/events`);
  const reader = events(response.body!);
  const first = await reader.next();
  const early = !secondWritten;
  readFirst();
  clearTimeout(bound);
  assert.deepEqual(first, { done: false, value: message("first", "1") });
  assert.deepEqual(await Array.fromAsync(reader), [message("second", "1")]);
  assert.ok(early, "the first event arrived only after the second was written");
});

Deno.test("EventStreamParser holds a line and an event's data up to its limit, and no more", () => {
  const at7 = () => new EventStreamParser("", limitOf(7));
  // Lines of 7 characters; "ab\ncd\ne" is 7: the LF after the last line is not data.
  assert.deepEqual(at7().push("data:ab\ndata:cd\ndata:e\n\n"), [message("ab\ncd\ne")]);
  assert.throws(
    () => at7().push("data:ab\ndata:cd\ndata:ef\n"),
    /^RangeError: An event's data past 7$/,
  );
  assert.deepEqual(at7().push(`${"data:\n".repeat(8)}\n`), [message("\n".repeat(7))]);
  assert.throws(() => at7().push("data:\n".repeat(9)), /An event's data past 7/);
  assert.deepEqual(at7().push(":abcdef\r\n:abcdef\r\r"), []);
  assert.throws(() => at7().push(":abcdefg"), /^RangeError: A line past 7$/);
  const parser = at7();
  parser.push("id:ab");
  assert.throws(() => parser.push("cde\n"), /A line past 7/);
});

// A quadratic pass (re-scanning or re-copying the unfinished line or the data
// at every piece) takes minutes on these inputs; the bounds guard that class,
// on a machine shared with other work. Through events(), each byte also costs
// a call of the platform's decoder and a few awaits, hence a wider bound.
const MB = 1 << 20;

function pushWithin(label: string, text: string, size = 1): ServerSentEvent[] {
  const parser = new EventStreamParser();
  const found: ServerSentEvent[] = [];
  const start = performance.now();
  for (let at = 0; at < text.length; at += size) {
    for (const event of parser.push(text.slice(at, at + size))) found.push(event);
  }
  const elapsed = performance.now() - start;
  assert.ok(elapsed < 2000, `${label} took ${elapsed.toFixed(0)} ms`);
  return found;
}

Deno.test("EventStreamParser parses 1 MB arriving one character a piece in linear time", () => {
  const long = "x".repeat(MB);
  assert.deepEqual(pushWithin("one long line", `data: ${long}\n\n`), [message(long)]);
  const lines = pushWithin("many data lines", `${"data: x\n".repeat(MB / 8)}\n`);
  assert.equal(lines[0]?.data.length, MB / 4 - 1);
  assert.equal(pushWithin("lone CRs", "\r".repeat(MB)).length, 0);
  const count = MB / 8;
  assert.equal(pushWithin("many events, one piece", "data:1\n\n".repeat(count), MB).length, count);
  assert.equal(pushWithin("many comments, one piece", ":\r\n".repeat(MB / 4), MB).length, 0);
});

Deno.test("events() reads a 1 MB event arriving one byte a chunk in linear time", async () => {
  const long = "é".repeat(MB / 2);
  const start = performance.now();
  const found = await Array.fromAsync(events(bodyOf(`data:${long}\r\r`)));
  const elapsed = performance.now() - start;
  // A million chunks through the platform's decoder and the stream's awaits:
  // 2–6 s on a loaded 2-core machine; a quadratic pass takes many minutes.
  assert.ok(elapsed < 20_000, `a 1 MB event took ${elapsed.toFixed(0)} ms`);
  assert.deepEqual(found, [message(long)]);
});
