// The runnable examples, run in this process through their main functions
// (so the sanitizers also check that they leave no server, connection or
// timer behind), with their output collected and checked.

import assert from "node:assert/strict";
import { main as cacheEtag } from "../examples/cache_etag.ts";
import { main as cacheRedis } from "../examples/cache_redis.ts";
import { startRedis } from "./redis_server.ts";
import { main as demo } from "../examples/demo.ts";
import { main as politeSync } from "../examples/polite_sync.ts";
import { record as recordHar, replay as replayHar } from "../examples/har_record.ts";
import { main as download } from "../examples/download.ts";
import { main as llmStream } from "../examples/llm_stream.ts";
import { main as ndjson } from "../examples/ndjson.ts";
import { main as dpop } from "../examples/dpop.ts";
import { main as network } from "../examples/network.ts";
import { main as sse } from "../examples/sse.ts";
import { main as sseReconnect } from "../examples/sse_reconnect.ts";
import { main as upload } from "../examples/upload.ts";
import { startFixtureServer } from "./fixture_server.ts";

Deno.test("examples/sse.ts prints the tokens as they arrive and stops at [DONE]", async () => {
  const writes: string[] = [];
  const reply = await sse((text) => writes.push(text));
  assert.equal(reply, "Streams let you read a reply as it is written.");
  assert.equal(writes[0], "200 text/event-stream\n> ");
  // One write per token, then the final newline: nothing after [DONE].
  assert.deepEqual(writes.slice(1, -1), reply.match(/\S+|\s\S+/g));
  assert.equal(writes.at(-1), "\n");
});

Deno.test("examples/sse_reconnect.ts resumes with Last-Event-ID after each drop and ends on 204", async () => {
  const lines: string[] = [];
  const { updates, connections } = await sseReconnect((line) => lines.push(line));
  // Nothing lost, nothing repeated, across the three drops.
  assert.equal(updates.length, 9);
  assert.equal(new Set(updates).size, 9);
  assert.equal(updates[0], "build started");
  assert.equal(updates.at(-1), "deployed to production");
  assert.deepEqual(connections, ["(none)", "3", "6", "9"]);
  assert.equal(lines[0], "#1 build started");
  assert.equal(lines.at(-1), "done after 4 connections (Last-Event-ID: (none), 3, 6, 9)");
});

Deno.test("examples/llm_stream.ts types each chunk, ends at [DONE], and names a chunk that does not match", async () => {
  const writes: string[] = [];
  const answer = await llmStream((text) => writes.push(text));
  assert.equal(answer, "Streams let you read a reply as it is written.");
  // The prompt, one write per token, the newline, then the failure of the broken stream.
  assert.equal(writes.length, 1 + 10 + 1 + 1);
  assert.match(
    writes.at(-1)!,
    /^ResponseParseException: Event at index 2 of the stream does not match the schema \(1 issue: choices\): POST http:\/\/127\.0\.0\.1:\d+\/broken \(status 200\)\n$/,
  );
});

Deno.test("examples/ndjson.ts parses each line, then a stall fails on readTimeout", async () => {
  const lines: string[] = [];
  const orders = await ndjson((line) => lines.push(line));
  assert.deepEqual(orders.map((order) => order.id), [1, 2, 3, 4, 5]);
  assert.equal(lines[5], "5 orders, 142.50 in all");
  assert.equal(lines.filter((line) => line.startsWith("stalled export: {")).length, 2);
  assert.match(lines.at(-1)!, /^stalled export: TimeoutException: .*readTimeout/);
});

Deno.test("examples/download.ts streams 50 MB to disk and checks the size", async () => {
  const lines: string[] = [];
  const size = await download(50, (line) => lines.push(line));
  assert.equal(size, 50 * 1024 * 1024);
  assert.deepEqual(
    lines.filter((line) => line.includes(" / 50 MB")).map((line) => line.trim().split(" ")[0]),
    ["10", "20", "30", "40", "50"],
  );
  assert.match(lines.at(-1)!, /^RSS after: \d+ MB$/);
});

Deno.test("examples/upload.ts streams a file from disk and a ReadableStream body", async () => {
  const lines: string[] = [];
  const [multipart, raw] = await upload((line) => lines.push(line));
  // The multipart body is the 20 MB file plus its part headers and boundaries.
  assert.ok(multipart! > 20 * 1024 * 1024 && multipart! < 20 * 1024 * 1024 + 2048);
  assert.equal(raw, 30 * 1024 * 1024);
  assert.equal(lines.length, 2);
});

Deno.test("examples/network.ts shows a cookie session, a proxy with noProxy, and a refused connection", async () => {
  const lines: string[] = [];
  const relayed = await network((line) => lines.push(line));
  const text = lines.join("\n");
  assert.ok(lines.length >= 10 && lines.length <= 25, `${lines.length} lines`);
  // The jar sends both cookies after the login, only the preference after the logout.
  assert.equal(lines[1], "POST /login    200, 2 Set-Cookie lines:");
  assert.equal(lines[2]!.trim(), "session=s1; Path=/; HttpOnly; SameSite=Lax");
  assert.equal(lines[4], "GET  /me       the server saw Cookie: session=s1; theme=dark");
  assert.equal(lines[5], "POST /logout   200, Set-Cookie: session=; Path=/; Max-Age=0");
  assert.equal(lines[6], "GET  /me       the server saw Cookie: theme=dark");
  assert.equal(lines[7], "Without withCookies(), after a login: Cookie: (none)");
  // The proxy's password is masked in the client's JSON and nowhere in the output.
  assert.match(text, /shows the proxy as \{"url":"http:\/\/demo:\*\*\*@127\.0\.0\.1:\d+"/);
  assert.ok(!text.includes("pr0xy-s3cret"), text);
  assert.match(text, /GET outside {2}through the proxy \(Via: 1\.1 demo-proxy\)/);
  assert.match(text, /GET intranet direct \(noProxy\)/);
  assert.match(
    text,
    /with a wrong proxy password: Connection failed: Proxy http:\/\/demo:\*\*\*@127\.0\.0\.1:\d+\/? refused the credentials \(407 Proxy Authentication Required\)/,
  );
  // Only the call with the right credentials reached the target through the proxy.
  assert.equal(relayed.length, 1);
  assert.match(relayed[0]!, /^http:\/\/127\.0\.0\.1:\d+\/whoami$/);
  assert.match(lines.at(-1)!, /^ConnectionException: Connection failed: connection refused \(/);
});

Deno.test("examples/network.ts asks for the environment's proxy variables to be unset", async () => {
  const lines: string[] = [];
  Deno.env.set("no_proxy", "127.0.0.1");
  try {
    assert.deepEqual(await network((line) => lines.push(line)), []);
  } finally {
    Deno.env.delete("no_proxy");
  }
  assert.deepEqual(lines, ["This demo needs an environment without proxies: unset no_proxy"]);
});

Deno.test("examples/demo.ts shows the cURL command of a request it sent, which replays it", async () => {
  const lines: string[] = [];
  const curl = await demo((line) => lines.push(line));
  const text = lines.join("\n");
  assert.match(
    curl,
    /^curl -X 'POST' \\\n {2}-H 'Accept: application\/json' \\\n {2}-H 'Content-Type: application\/json' \\\n {2}--data '\{"name": "Margaret", "role": "admin"\}' \\\n {2}'http:\/\/127\.0\.0\.1:\d+\/api\/users'$/,
  );
  assert.ok(
    text.includes(
      `▶ The same request as a cURL command (toCurl), to replay it in a shell\n  ${
        curl.replaceAll("\n", "\n  ")
      }`,
    ),
  );
  assert.ok(!text.includes("demo-secret-token") && !text.includes("s-123"), "secrets masked");
  assert.match(text, /HTTP GET \/api\/flaky[^]*HTTP GET \/api\/flaky[^]*Response: 200/);
  assert.match(lines.at(-1)!, /^\nDone: every request above went over a real socket/);
  // Replayed against another server, the command sends what the client sent.
  await using server = startFixtureServer();
  const replay = curl.replace(/'http:\/\/127\.0\.0\.1:\d+/, `'${server.url}`);
  const output = await new Deno.Command("sh", { args: ["-c", `${replay} -s -o /dev/null`] })
    .output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const received = server.last();
  assert.equal(received.method, "POST");
  assert.equal(received.path, "/api/users");
  assert.equal(received.headers["content-type"], "application/json");
  assert.equal(new TextDecoder().decode(received.body), '{"name": "Margaret", "role": "admin"}');
});

Deno.test("examples/cache_etag.ts: only the first call of each resource counts, the rest are hits and 304s", async () => {
  const lines: string[] = [];
  const counts = await cacheEtag((line) => lines.push(line));
  assert.equal(counts.counted, 3);
  assert.ok(counts.notModified >= 3, `${counts.notModified} 304s`);
  assert.equal(counts.requests, counts.counted + counts.notModified);
  assert.equal(lines.length, 7);
  assert.match(lines[1]!, /fetchline: hit, deno: hit, undici: hit/);
  assert.match(lines.join("\n"), /fwd=stale; fwd-status=304/);
});

Deno.test("examples/cache_redis.ts: a second process stores, this one is served from Redis", async () => {
  await using redis = await startRedis();
  const lines: string[] = [];
  // The second process through sh, which the suite may run (not Deno's own path).
  const run = async (args: string[]) => {
    const { code, stdout, stderr } = await new Deno.Command("sh", {
      args: ["-c", 'exec "$0" "$@"', Deno.execPath(), ...args],
      stdin: "null",
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    return new TextDecoder().decode(stdout).trim();
  };
  const served = await cacheRedis(redis.url, (line) => lines.push(line), run);
  assert.equal(served, 1);
  assert.match(lines[0]!, /^second process: fetchline; fwd=miss; stored: \{"report":"weekly"/);
  assert.match(lines[1]!, /^this process: {3}fetchline; hit: \{"report":"weekly"/);
});

Deno.test("examples/polite_sync.ts fetches every page, never more than 4 at once, never refused; its re-sync of 304s costs no tokens", async () => {
  const lines: string[] = [];
  const { seen, items, countedSeconds, uncountedSeconds } = await politeSync(
    30,
    (line) => lines.push(line),
  );
  assert.equal(items, 300);
  assert.equal(seen.pages, 30);
  assert.equal(seen.throttled, 0);
  assert.equal(seen.notModified, 60, "both re-syncs revalidated every page");
  assert.ok(seen.mostAtOnce <= 4, `${seen.mostAtOnce} at once`);
  assert.match(lines[0]!, /^300 items from 30 pages in \d+\.\d s$/);
  // Counting the 304s: one token every 67 ms, 29 waits after the first.
  assert.ok(countedSeconds >= 1.9, `${countedSeconds} s`);
  assert.ok(uncountedSeconds * 4 < countedSeconds, `${uncountedSeconds} s`);
  assert.match(lines[2]!, /^re-sync, every page a 304: .* \(\d+x faster\)$/);
});

Deno.test("examples/har_record.ts records a session to a .har file, masked, and replays it", async () => {
  const path = await Deno.makeTempFile({ suffix: ".har" });
  try {
    await recordHar(path);
    const text = await Deno.readTextFile(path);
    assert.equal(JSON.parse(text).log.entries.length, 2);
    for (const secret of ["hunter2", "abc123"]) assert.ok(!text.includes(secret), secret);
    assert.deepEqual(await replayHar(text), ["tea", "milk"]);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("examples/dpop.ts answers each server's nonce once, then reuses it with a bound token", async () => {
  const { seen, bodies } = await dpop(() => {});
  assert.deepEqual(seen, [
    "AS no nonce",
    "AS nonce as-1",
    "API GET /accounts/me no nonce",
    "API GET /accounts/me rs-1",
    "API GET /accounts/me rs-1",
  ]);
  assert.deepEqual(bodies, [{ account: "ada", balance: 42 }, { account: "ada", balance: 42 }]);
});
