import assert from "node:assert/strict";
import fc from "fast-check";
import { HttpClient, HttpClientConfigBuilder, HttpRequest } from "../mod.ts";
import { serializeJson } from "../utils.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { throwsAtOnce } from "./helpers.ts";

const decoder = new TextDecoder();

Deno.test('serializeJson(value, field, "compact") writes what JSON.stringify writes, for any JSON value', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      assert.equal(serializeJson(value, "jsonData", "compact"), JSON.stringify(value));
    }),
    { numRuns: 500 },
  );
  const date = new Date(Date.UTC(2026, 0, 2));
  const value = { date, skipped: undefined, list: [undefined, Object(1), -0, 1e21], "ü": "😀" };
  assert.equal(serializeJson(value, "jsonData", "compact"), JSON.stringify(value));
});

Deno.test('serializeJson() refuses in the "compact" style what it refuses in Python\'s', () => {
  for (const bad of [{ a: [NaN] }, { a: 1n }, new Map()]) {
    assert.throws(() => serializeJson(bad, "jsonData", "compact"), TypeError);
  }
  throwsAtOnce(
    () => serializeJson({}, "jsonData", "pretty" as never),
    TypeError,
    /^Invalid jsonStyle: expected "python" or "compact", got "pretty"$/,
  );
});

Deno.test("withJsonStyle() sets the style, Python's by default, and refuses any other value naming jsonStyle", () => {
  assert.equal(new HttpClientConfigBuilder().build().jsonStyle, "python");
  const builder = new HttpClientConfigBuilder();
  assert.equal(builder.withJsonStyle("compact"), builder);
  const config = builder.build();
  assert.equal(config.jsonStyle, "compact");
  assert.equal(JSON.parse(JSON.stringify(config)).jsonStyle, "compact");
  assert.match(Deno.inspect(config), /jsonStyle: "compact"/);
  assert.equal(HttpClientConfigBuilder.from(config).build().jsonStyle, "compact");
  for (const bad of ["Compact", "pretty", undefined, null, 1]) {
    throwsAtOnce(
      () => new HttpClientConfigBuilder().withJsonStyle(bad as never),
      TypeError,
      /^Invalid jsonStyle: expected "python" or "compact", got /,
    );
  }
});

Deno.test('a client with withJsonStyle("compact") sends JSON.stringify\'s bytes, and keeps them through extend(), hooks and toCurl()', async () => {
  await using server = startFixtureServer();
  const value = { name: "Zoë's", n: [1, 2.5], nested: { ok: true, none: null } };
  const compact = JSON.stringify(value);
  const hooked: string[] = [];
  using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withJsonStyle("compact")
      .withRequestHook({
        beforeRequest(request) {
          hooked.push(request.jsonText ?? "");
          // A copy the hook makes keeps the style, its new jsonData too.
          return request.jsonData === "swap" ? request.with({ jsonData: value }) : request;
        },
      }).build(),
  );
  const response = await client.post("/echo", { jsonData: value });
  assert.equal(decoder.decode(server.last().body), compact);
  assert.equal(server.last().headers["content-type"], "application/json");
  assert.deepEqual(hooked, [compact]);
  assert.equal(response.request.jsonText, compact);
  assert.ok(response.request.toCurl().includes("--data '" + compact.replaceAll("'", `'"'"'`)));
  await client.put("/echo", { jsonData: "swap" });
  assert.equal(decoder.decode(server.last().body), compact);
  // A request sent through the client, not one a caller builds, takes the client's style.
  const request = new HttpRequest("POST", "/echo", { jsonData: value });
  assert.equal(request.jsonText, serializeJson(value));
  await client.request(request);
  assert.equal(decoder.decode(server.last().body), compact);
  const derived = client.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }));
  await derived.post("/echo", { jsonData: value });
  assert.equal(decoder.decode(server.last().body), compact);
  const python = client.extend((builder) => builder.withJsonStyle("python"));
  await python.post("/echo", { jsonData: value });
  assert.equal(decoder.decode(server.last().body), serializeJson(value));
});

Deno.test("toCurl() of a request a compact client sent, run by curl, sends the bytes the client sent", async () => {
  await using server = startFixtureServer();
  using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withJsonStyle("compact").build(),
  );
  const response = await client.post("/echo", { jsonData: { q: 'it\'s "so"', n: [1, 2] } });
  const viaClient = server.last().body;
  const output = await new Deno.Command("sh", {
    args: ["-c", `${response.request.toCurl()} -s -o /dev/null`],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, decoder.decode(output.stderr));
  assert.deepEqual(server.last().body, viaClient);
  assert.equal(decoder.decode(viaClient), '{"q":"it\'s \\"so\\"","n":[1,2]}');
});
