import assert from "node:assert/strict";
import fc from "fast-check";
import { lines, splitLines } from "../src/http/text_stream.ts";
import { bodyOf, cutAt, limitOf, textAndCuts } from "./chunked.ts";

const encoder = new TextEncoder();

async function linesOf(chunks: readonly (string | Uint8Array)[], charset?: string) {
  const bytes = chunks.map((chunk) => typeof chunk === "string" ? encoder.encode(chunk) : chunk);
  return await Array.fromAsync(lines(bodyOf(bytes), charset));
}

Deno.test("lines() ends a line at LF or CRLF and strips the ending", async () => {
  assert.deepEqual(await linesOf(["a\nb\r\nc\n"]), ["a", "b", "c"]);
  assert.deepEqual(await linesOf(["\n\r\n\n"]), ["", "", ""]);
});

Deno.test("lines() yields a last line without an ending, and nothing for an empty body", async () => {
  assert.deepEqual(await linesOf(["a\nlast"]), ["a", "last"]);
  assert.deepEqual(await linesOf(["only"]), ["only"]);
  assert.deepEqual(await linesOf([]), []);
  assert.deepEqual(await linesOf(["", ""]), []);
});

Deno.test("lines() keeps a CR that is not followed by LF in the line", async () => {
  assert.deepEqual(await linesOf(["a\rb\n\r\n"]), ["a\rb", ""]);
  assert.deepEqual(await linesOf(["a\r\r\n"]), ["a\r"]);
  assert.deepEqual(await linesOf(["end\r"]), ["end\r"]);
  assert.deepEqual(await linesOf(["\r"]), ["\r"]);
});

Deno.test("lines() joins a CRLF cut between two chunks into one line end", async () => {
  assert.deepEqual(await linesOf(["a\r", "\nb"]), ["a", "b"]);
  assert.deepEqual(await linesOf(["a\r", "", "\n"]), ["a"]);
  assert.deepEqual(await linesOf(["a\r", "b\n"]), ["a\rb"]);
  assert.deepEqual(await linesOf(["a\r", "\r", "\n"]), ["a\r"]);
  assert.deepEqual(await linesOf(["a", "\r", "\n", "b", "\r"]), ["a", "b\r"]);
});

Deno.test("lines() keeps a character whose bytes are cut between chunks whole", async () => {
  for (const char of ["é", "€", "😀"]) {
    const bytes = encoder.encode(`${char}\n${char}`);
    const oneByteChunks = [...bytes].map((byte) => Uint8Array.of(byte));
    assert.deepEqual(await linesOf(oneByteChunks), [char, char]);
  }
});

Deno.test("lines() decodes with the charset given, UTF-8 by default, dropping one BOM", async () => {
  const latin1 = Uint8Array.of(0x63, 0x61, 0x66, 0xe9, 0x0a, 0x80);
  assert.deepEqual(await linesOf([latin1], "windows-1252"), ["café", "€"]);
  assert.deepEqual(await linesOf(["\uFEFF\uFEFFa"]), ["\uFEFFa"]);
  assert.deepEqual(await linesOf([Uint8Array.of(0xef, 0xbb), Uint8Array.of(0xbf, 0x61)]), ["a"]);
  assert.deepEqual(await linesOf([Uint8Array.of(0x61, 0xff, 0x0a)]), ["a\uFFFD"]);
});

Deno.test("lines() keeps a U+FEFF that opens a later chunk, not the body", async () => {
  const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
  assert.deepEqual(await linesOf(["a", bom, "\n", bom]), ["a\uFEFF", "\uFEFF"]);
  assert.deepEqual(await linesOf([bom, bom, "a"]), ["\uFEFFa"]);
  const utf16 = Uint8Array.of(0xff, 0xfe, 0x61, 0x00);
  assert.deepEqual(await linesOf([utf16, utf16], "utf-16le"), ["a\uFEFFa"]);
});

Deno.test("lines() reads a charset the runtime does not know as UTF-8", async () => {
  assert.deepEqual(await linesOf(["caf\u00e9\n"], "no-such-charset"), ["café"]);
});

Deno.test("lines() yields a line as soon as its ending arrives", async () => {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const reader = lines(body);
  controller.enqueue(encoder.encode("first\nsec"));
  assert.deepEqual(await reader.next(), { done: false, value: "first" });
  controller.enqueue(encoder.encode("ond\n"));
  assert.deepEqual(await reader.next(), { done: false, value: "second" });
  controller.close();
  assert.deepEqual(await reader.next(), { done: true, value: undefined });
});

Deno.test("lines() cancels the body when the loop is left early", async () => {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => controller.enqueue(encoder.encode("again\n")),
    cancel: () => void (cancelled = true),
  });
  for await (const line of lines(body)) {
    assert.equal(line, "again");
    break;
  }
  assert.ok(cancelled);
});

Deno.test("lines() holds a line up to its limit, and fails a longer one as soon as it is", async () => {
  const limited = (chunks: string[], max: number) =>
    Array.fromAsync(
      lines(bodyOf(chunks.map((chunk) => encoder.encode(chunk))), "utf-8", limitOf(max)),
    );
  assert.deepEqual(await limited(["abc\r", "\nabc"], 3), ["abc", "abc"]);
  assert.deepEqual(await limited(["ab\r\r\n"], 3), ["ab\r"]);
  await assert.rejects(limited(["abcd\n"], 3), /^RangeError: A line past 3$/);
  await assert.rejects(limited(["ab", "cd"], 3), /A line past 3/);
  await assert.rejects(limited(["abc\r\r"], 3), /A line past 3/);
  // The chunk past the limit is the last one read: the body is cancelled.
  let reads = 0;
  let cancelled = false;
  const endless = new ReadableStream<Uint8Array>({
    pull: (controller) => void (reads++, controller.enqueue(encoder.encode("x".repeat(10)))),
    cancel: () => void (cancelled = true),
  }, { highWaterMark: 0 });
  await assert.rejects(Array.fromAsync(lines(endless, undefined, limitOf(95))), /A line past 95/);
  assert.equal(reads, 10);
  assert.ok(cancelled);
});

Deno.test("lines() drops the unfinished last line of a stream cut short", async () => {
  const body = () => ReadableStream.from([encoder.encode("whole\nunfinish")]);
  assert.deepEqual(await Array.fromAsync(lines(body(), undefined, undefined, () => false)), [
    "whole",
  ]);
  assert.deepEqual(await Array.fromAsync(lines(body())), ["whole", "unfinish"]);
});

Deno.test("lines() reads any async iterable of bytes, and splitLines() any of text", async () => {
  async function* bytes() {
    yield encoder.encode("a\r");
    yield encoder.encode("\nb");
  }
  assert.deepEqual(await Array.fromAsync(lines(bytes())), ["a", "b"]);
  async function* text() {
    yield "x\r";
    yield "\ny";
  }
  assert.deepEqual(await Array.fromAsync(splitLines(text())), ["x", "y"]);
});

Deno.test("lines() gives the same lines however the same bytes are cut into chunks", async () => {
  const alphabet = ["a", "bc", "\n", "\r", "\r\n", "é", "€", "😀", "\uFEFF", " "];
  await fc.assert(
    fc.asyncProperty(textAndCuts(alphabet), async ({ bytes, cuts }) => {
      const whole = new TextDecoder().decode(bytes).split(/\r?\n/);
      if (whole.at(-1) === "") whole.pop();
      assert.deepEqual(await linesOf(cutAt(bytes, cuts)), whole);
    }),
    { numRuns: 300 },
  );
});

// A quadratic pass (re-scanning or re-copying the unfinished line at every
// chunk) takes minutes on these inputs; the bounds guard that class only, on
// a machine shared with other work. Through lines(), each byte also costs a
// call of the platform's decoder and a few awaits, hence a wider bound.
const MB = 1 << 20;

async function within<T>(label: string, boundMs: number, run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await run();
  const elapsed = performance.now() - start;
  assert.ok(elapsed < boundMs, `${label} took ${elapsed.toFixed(0)} ms`);
  return result;
}

async function* pieces(text: string, size: number) {
  for (let start = 0; start < text.length; start += size) yield text.slice(start, start + size);
}

Deno.test("splitLines() splits 1 MB arriving one character a piece in linear time", async () => {
  const long = "x".repeat(MB);
  const split = (text: string, size = 1) => Array.fromAsync(splitLines(pieces(text, size)));
  assert.deepEqual(await within("one line", 5000, () => split(`${long}\r\n`)), [long]);
  assert.deepEqual(await within("lone CRs", 5000, () => split("\r".repeat(MB))), ["\r".repeat(MB)]);
  const short = await within("short lines", 5000, () => split("ab\r\n".repeat(MB / 4), MB));
  assert.equal(short.length, MB / 4);
});

Deno.test("lines() reads a 1 MB line arriving one byte a chunk in linear time", async () => {
  const long = "é".repeat(MB / 2);
  const read = () => Array.fromAsync(lines(bodyOf(`${long}\n`)));
  assert.deepEqual(await within("one line", 20_000, read), [long]);
});
