// toCurl() and a raw body: text goes on the command line with --data-raw;
// anything else is read by curl from standard input (--data-binary @-), so a
// command never sends other bytes than the client. Replayed through the real
// curl against the fixture.

import assert from "node:assert/strict";
import fc from "fast-check";
import { HttpClient, HttpClientConfigBuilder, HttpRequest, type RequestBody } from "../mod.ts";
import { toCurl } from "../utils.ts";
import { startFixtureServer } from "./fixture_server.ts";

const SEP = " \\\n  ";
const lines = (...args: string[]) => args.join(SEP);
const encode = (text: string) => new TextEncoder().encode(text);

/** Runs a rendered command through `sh -c` with `stdin` as its standard input; it must succeed. */
async function runInShell(command: string, stdin: Uint8Array): Promise<void> {
  const child = new Deno.Command("sh", {
    args: ["-c", `${command} -s -o /dev/null`],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(stdin);
  await writer.close();
  const output = await child.output();
  assert.equal(
    output.code,
    0,
    `curl failed (${output.code}): ${new TextDecoder().decode(output.stderr)}\n${command}`,
  );
}

Deno.test("toCurl() writes a text body with --data-raw and the Content-Type the client sends", () => {
  const request = (body: RequestBody, headers?: Record<string, string>) =>
    toCurl(new HttpRequest("POST", "https://h.test/", { body, ...headers && { headers } }));
  assert.equal(
    request("@/etc/passwd it's"),
    lines(
      "curl -X 'POST'",
      "-H 'Content-Type: text/plain;charset=UTF-8'",
      `--data-raw '@/etc/passwd it'"'"'s'`,
      "'https://h.test/'",
    ),
  );
  assert.equal(
    request(encode("\uFEFF{}"), { "content-type": "application/json" }),
    lines(
      "curl -X 'POST'",
      "-H 'content-type: application/json'",
      "--data-raw '\uFEFF{}'",
      "'https://h.test/'",
    ),
  );
});

Deno.test("toCurl() reads a body that no argument can hold from standard input", () => {
  const cases: [RequestBody, string][] = [
    [new Uint8Array([0xff, 0xfe, 0x00]), "application/octet-stream"],
    [encode("a\0b").buffer, "application/octet-stream"],
    ["text with \0 NUL", "text/plain;charset=UTF-8"],
    [new Blob(["text"], { type: "text/csv" }), "text/csv"],
    [new ReadableStream<Uint8Array>(), "application/octet-stream"],
  ];
  for (const [body, type] of cases) {
    assert.equal(
      toCurl(new HttpRequest("PUT", "https://h.test/", { body })),
      lines(
        "curl -X 'PUT'",
        `-H 'Content-Type: ${type}'`,
        "--data-binary @-",
        "'https://h.test/'",
      ),
    );
  }
});

Deno.test("toCurl() commands replay every kind of raw body byte for byte through the real curl", async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).withMaxRedirects(0).build(),
  );
  const binary = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);
  const cases: [() => RequestBody, Uint8Array][] = [
    [
      () => "@/etc/passwd\r\nline 2 'quoted' $(id) ünïcode",
      encode("@/etc/passwd\r\nline 2 'quoted' $(id) ünïcode"),
    ],
    [() => encode("\uFEFFbom and text"), encode("\uFEFFbom and text")],
    [() => "-starts with a dash", encode("-starts with a dash")],
    [() => "nul \0 inside", encode("nul \0 inside")],
    [() => binary, binary],
    [() => binary.slice().buffer, binary],
    [() => new Blob([binary], { type: "image/x-test" }), binary],
    [() => new Blob([binary]).stream(), binary],
  ];
  for (const [make, bytes] of cases) {
    const request = new HttpRequest("PUT", `${server.url}/raw`, { body: make() });
    await client.request(request);
    const viaClient = server.last();
    const command = toCurl(new HttpRequest("PUT", `${server.url}/raw`, { body: make() }));
    await runInShell(command, bytes);
    const viaCurl = server.last();
    assert.notEqual(viaClient, viaCurl);
    assert.deepEqual(viaClient.body, bytes);
    assert.deepEqual(viaCurl.body, bytes, command);
    assert.equal(viaCurl.headers["content-type"], viaClient.headers["content-type"], command);
  }
});

Deno.test("toCurl() commands with any text or bytes body send exactly the client's bytes", async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).withMaxRedirects(0).build(),
  );
  const runs = Math.min(100, Number(Deno.env.get("TO_CURL_RUNS") ?? 100));
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.string({ unit: "binary", maxLength: 40 }),
        fc.uint8Array({ maxLength: 40 }),
        fc.string({ unit: "grapheme", maxLength: 20 }).map(encode),
      ),
      async (body) => {
        const request = new HttpRequest("POST", `${server.url}/raw`, { body });
        await client.request(request);
        const viaClient = server.last();
        // What the command does not hold it reads from stdin: give it the bytes the client sent.
        await runInShell(toCurl(request), viaClient.body);
        const viaCurl = server.last();
        assert.deepEqual(viaCurl.body, viaClient.body);
        assert.equal(viaCurl.headers["content-type"], viaClient.headers["content-type"]);
      },
    ),
    { numRuns: runs },
  );
});

Deno.test("toCurl() never writes the bytes of a body it reads from standard input", () => {
  const command = toCurl(
    new HttpRequest("POST", "https://h.test/", { body: new Uint8Array([0x80, 0x41, 0x42]) }),
  );
  assert.doesNotMatch(command, /AB/);
  assert.match(command, /--data-binary @-/);
});
