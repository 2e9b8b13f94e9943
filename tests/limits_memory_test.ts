// Buffered bodies under maxResponseBytes: the limit counts decoded bytes and
// stops a compression bomb at once, the default refuses a body past 256 MiB,
// and a body under the limit costs about its own size in memory (never the
// chunks and their join at once). Memory bounds are generous: they guard
// against holding the expanded bomb or a second copy, not exact sizes.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, HttpClientException } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, rssGrowth } from "./helpers.ts";
import { compressedZeros } from "./raw_server.ts";

const MiB = 2 ** 20;

function client(configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder) {
  return new HttpClient(configure(new HttpClientConfigBuilder()).build());
}

// First in the file: before the bombs and the 256 MiB body have grown the process.
Deno.test("withMaxResponseBytes() reads a chunked body of 192 MiB holding about one copy of it", async () => {
  await using server = startFixtureServer();
  const url = await server.faultUrl("zeros-192mib-chunked");
  await using http = client((b) => b.withMaxResponseBytes(200 * MiB));
  const { result: response, growth } = await rssGrowth(() => http.get(`${url}/zeros`));
  assert.equal(response.content.byteLength, 192 * MiB);
  assert.equal(response.content[192 * MiB - 1], 0);
  // The chunks and their join together would be 384 MiB; the slack is for
  // chunks the runtime made that wait for the garbage collector.
  assert.ok(growth < 288 * MiB, `RSS grew by ${growth / MiB} MiB`);
});

for (const coding of ["gzip", "br"] as const) {
  Deno.test(`withMaxResponseBytes() stops a ${coding} bomb of 300 MiB at the limit, holding no more than that`, async () => {
    await using server = startFixtureServer();
    const url = await server.faultUrl(`${coding}-bomb`);
    await compressedZeros(coding, 300 * MiB);
    await using http = client((b) => b.withMaxResponseBytes(1_000_000));
    const start = performance.now();
    const { result: error, growth } = await rssGrowth(() =>
      rejectsWith(
        http.get(`${url}/bomb`),
        HttpClientException,
        /^Response body exceeds maxResponseBytes \(1000000\): GET http:\/\/127\.0\.0\.1:\d+\/bomb \(read it with stream\(\), or raise withMaxResponseBytes\)$/,
      )
    );
    assert.equal(error.constructor, HttpClientException);
    assert.ok(performance.now() - start < 5000, "failed at the limit, not after decoding it all");
    assert.ok(growth < 64 * MiB, `RSS grew by ${growth / MiB} MiB`);
    assert.equal(server.requests.length, 1, "not retried");
    assert.ok(await server.rawConnectionsClosed(), "the client hung up");
  });
}

Deno.test("HttpClient's default maxResponseBytes (256 MiB) refuses a body that decodes past it", async () => {
  await using server = startFixtureServer();
  const url = await server.faultUrl("zeros-257mib-gzip");
  await compressedZeros("gzip", 257 * MiB);
  await using http = client((b) => b);
  await rejectsWith(
    http.get(`${url}/zeros`),
    HttpClientException,
    /^Response body exceeds maxResponseBytes \(268435456\): GET .*\/zeros \(read it with stream\(\)/,
  );
  assert.equal(server.requests.length, 1);
});
