// Streamed calls against httpbin, a server written by others: NDJSON lines
// from /stream/<n>, bytes dripped over time from /drip (readTimeout shorter
// and longer than the gaps, download progress as they arrive), and partial
// content from /range/<n> with a Range header. `deno task test:interop`
// runs this file, the main test task does not.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, type Progress, TimeoutException } from "../../mod.ts";
import { rejectsWith } from "../helpers.ts";
import { startHttpbin } from "./httpbin_server.ts";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz";

Deno.test("Streamed calls interoperate with httpbin's streaming endpoints", async (t) => {
  await using httpbin = await startHttpbin();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(httpbin.url).withRetry({ maxRetries: 0 }).build(),
  );

  await t.step("GET /stream/<n> gives n NDJSON lines through lines()", async () => {
    await using response = await client.stream("GET", "/stream/5");
    assert.equal(response.statusCode, 200);
    const ids: number[] = [];
    for await (const line of response.lines()) ids.push((JSON.parse(line) as { id: number }).id);
    assert.deepEqual(ids, [0, 1, 2, 3, 4]);
  });

  await t.step(
    "GET /drip with a readTimeout longer than the gaps reads every byte, with progress",
    async () => {
      const seen: Progress[] = [];
      await using response = await client.stream("GET", "/drip", {
        params: { numbytes: 4, duration: 0.8, delay: 0 },
        readTimeout: 5,
        onDownloadProgress: (progress) => seen.push(progress),
      });
      assert.equal(response.header("content-length"), "4");
      let text = "";
      const decoder = new TextDecoder();
      for await (const chunk of response.body) text += decoder.decode(chunk);
      assert.equal(text, "****");
      assert.deepEqual(seen.at(0), { transferredBytes: 0, totalBytes: 4, percent: 0 });
      assert.deepEqual(seen.at(-1), { transferredBytes: 4, totalBytes: 4, percent: 1 });
      // The bytes arrived over time, so progress was told of them as they came.
      assert.ok(seen.length >= 3, JSON.stringify(seen));
      for (let i = 1; i < seen.length; i++) {
        assert.ok(seen[i]!.transferredBytes >= seen[i - 1]!.transferredBytes, JSON.stringify(seen));
      }
    },
  );

  await t.step(
    "GET /drip with a readTimeout shorter than the gaps fails with TimeoutException",
    async () => {
      await using response = await client.stream("GET", "/drip", {
        params: { numbytes: 3, duration: 3, delay: 0 },
        readTimeout: 0.2,
      });
      await rejectsWith(response.read(), TimeoutException, /readTimeout/);
    },
  );

  await t.step(
    "GET /range/<n> with a Range header gives 206, its Content-Range and that part",
    async () => {
      const seen: Progress[] = [];
      const response = await client.get("/range/100", {
        headers: { Range: "bytes=10-19" },
        onDownloadProgress: (progress) => seen.push(progress),
      });
      assert.equal(response.statusCode, 206);
      assert.equal(response.header("content-range"), "bytes 10-19/100");
      assert.equal(response.text, ALPHABET.slice(10, 20));
      // The totals are those of the part sent, not of the whole resource.
      assert.deepEqual(seen.at(0), { transferredBytes: 0, totalBytes: 10, percent: 0 });
      assert.deepEqual(seen.at(-1), { transferredBytes: 10, totalBytes: 10, percent: 1 });
    },
  );

  await t.step("GET /range/<n> streamed in small chunks reaches its total", async () => {
    const seen: Progress[] = [];
    await using response = await client.stream("GET", "/range/2000", {
      params: { chunk_size: 500 },
      headers: { Range: "bytes=1000-" },
      onDownloadProgress: (progress) => seen.push(progress),
    });
    assert.equal(response.statusCode, 206);
    assert.equal(response.header("content-range"), "bytes 1000-1999/2000");
    const read = await response.read();
    assert.equal(read.text, ALPHABET.repeat(77).slice(1000, 2000));
    assert.deepEqual(seen.at(-1), { transferredBytes: 1000, totalBytes: 1000, percent: 1 });
  });

  await t.step("GET /range/<n> with a Range past its end gives 416", async () => {
    const response = await client.get("/range/10", { headers: { Range: "bytes=50-60" } });
    assert.equal(response.statusCode, 416);
    assert.equal(response.header("content-range"), "bytes */10");
    assert.equal(response.content.byteLength, 0);
  });
});
