// `deno task test:cache-conformance`: the public HTTP cache test suite
// (harness.mjs, suite/) against HttpCache with a MemoryCacheStore, through a
// fetchline client on Deno; the suite's server runs on Node on a free
// loopback port. Prints a line per graded test, the counts per category and
// a closing line; fails when the pass count is below floor.json's. Writes
// nothing unless asked: `--write` puts the per-category and per-test
// results, beside the baseline's and undici's (bench/), in bench/RESULTS.md.
// `--only=<id>,<id>` runs those tests alone (no floor); `--json=<file>` writes
// the per-test results there (how bench/cache_conformance_baseline.json was
// made, on the branch's base).

import { HttpClient, HttpClientConfigBuilder, HttpRequest } from "../../mod.ts";
import { HttpCache, MemoryCacheStore } from "../../cache.ts";
import { perSuite, report, responseOf, runSuite } from "./harness.mjs";

type Row = Awaited<ReturnType<typeof runSuite>>["rows"][number];

const here = new URL(".", import.meta.url);
const write = Deno.args.includes("--write");
const onlyArg = Deno.args.find((arg) => arg.startsWith("--only="));
const jsonArg = Deno.args.find((arg) => arg.startsWith("--json="));
const only = onlyArg === undefined ? undefined : new Set(onlyArg.slice(7).split(","));

const server = new Deno.Command("node", {
  args: [new URL("server.mjs", here).pathname],
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
let seen = "";
const deadline = Date.now() + 10_000;
while (!/listening \d+\n/.test(seen) && Date.now() < deadline) {
  const { value, done } = await lines.read();
  if (done) break;
  seen += value;
}
const port = /listening (\d+)\n/.exec(seen)?.[1];
if (port === undefined) throw new Error(`the suite's server did not start: ${seen}`);
// The server's warnings (the suite's own) are drained, not shown.
const drained = (async () => {
  while (!(await lines.read()).done) { /* drained */ }
})();

const base = `http://127.0.0.1:${port}`;
const cache = new HttpCache({ store: new MemoryCacheStore() });
// The client's own fetch is the runtime's: the suite's engine has the global one while it runs.
const runtimeFetch = globalThis.fetch;
const client = new HttpClient(
  new HttpClientConfigBuilder().withMaxRedirects(0).withRetry({ maxRetries: 0 })
    .withFetch((input, init) => runtimeFetch(input, init)).withCache(cache).build(),
);

const started = Date.now();
let result;
try {
  result = await runSuite(base, async ({ url, method, headers, body }) => {
    const fields: Record<string, string> = {};
    for (const [name, value] of headers) {
      const existing = Object.keys(fields).find((key) => key.toLowerCase() === name.toLowerCase());
      if (existing === undefined) fields[name] = value;
      else fields[existing] += `, ${value}`;
    }
    const response = await client.request(
      new HttpRequest(
        method,
        url,
        body === undefined ? { headers: fields } : { headers: fields, body },
      ),
    );
    return responseOf(response.statusCode, Object.entries(response.headers), response.content);
  }, only === undefined ? {} : { only });
} finally {
  await cache.whenIdle();
  await client.close();
  await server.stdin.close();
  await drained;
  await server.status;
}

for (const line of report(result.rows)) console.log(line);
const floor = JSON.parse(await Deno.readTextFile(new URL("floor.json", here))).passed as number;
const seconds = ((Date.now() - started) / 1000).toFixed(0);
console.log(
  `cache conformance: ${result.passed} of ${result.graded} graded tests passed (floor ${floor}) in ${seconds} s`,
);
if (write) await writeResults(result.rows);
if (jsonArg !== undefined) {
  const rows = { rows: result.rows, passed: result.passed, graded: result.graded };
  await Deno.writeTextFile(jsonArg.slice(7), `${JSON.stringify(rows, null, 1)}\n`);
}
if (only === undefined && result.passed < floor) {
  console.error(`cache conformance: ${result.passed} passed, below the floor of ${floor}`);
  Deno.exit(1);
}

/** bench/RESULTS.md's section: per category and per test, beside the baseline's and undici's. */
async function writeResults(rows: Row[]): Promise<void> {
  const { writeSection, table } = await import("../../bench/_results.ts");
  const read = async (name: string): Promise<Row[]> =>
    JSON.parse(await Deno.readTextFile(new URL(`../../bench/${name}`, here))).rows;
  const before = await read("cache_conformance_baseline.json");
  const undici = await read("cache_conformance_undici.json");
  const passedIn = (list: Row[]) => new Map(list.map((row) => [row.id, row]));
  const [was, theirs] = [passedIn(before), passedIn(undici)];
  const [nowSuites, wasSuites, theirSuites] = [perSuite(rows), perSuite(before), perSuite(undici)];
  const count = (map: Map<string, { passed: number; graded: number }>, suite: string) =>
    `${map.get(suite)?.passed ?? 0}`;
  const categories = [...nowSuites].map(([suite, now]) => [
    suite,
    `${now.graded}`,
    count(wasSuites, suite),
    `${now.passed}`,
    count(theirSuites, suite),
  ]);
  const total = (list: Row[]) => `${list.filter((row) => row.passed).length}`;
  categories.push(["**all**", `${rows.length}`, total(before), total(rows), total(undici)]);
  const mark = (row: Row | undefined) =>
    row === undefined ? "–" : row.passed ? "pass" : row.outcome;
  const tests = rows.map((row) => [
    `${row.suite}/${row.id}`,
    row.kind,
    mark(was.get(row.id)),
    mark(row),
    mark(theirs.get(row.id)),
  ]);
  await writeSection(
    "cache-conformance",
    `## HTTP cache conformance

Written by \`deno task test:cache-conformance --write\` (tests/cache_conformance/run.ts).

The public HTTP cache test suite (http-tests/cache-tests, vendored and pinned in
tests/cache_conformance/), its private-cache selection: every test but the CDN-only ones and those
a browser skips, graded unless informational (\`check\`). fetchline: \`HttpCache\` with a
\`MemoryCacheStore\` through a client on Deno (no redirect followed, no retry). Before: the branch's
base (bench/cache_conformance_baseline.json). undici: its \`interceptors.cache()\` with its memory
store, private, on Node (bench/cache_conformance_undici.mjs, bench/cache_conformance_undici.json).
Where a test and RFC 9111 disagree, docs/caching.md's "Conformance" lists the case.

${table(["category", "graded", "before", "fetchline", "undici"], categories, 4)}

${table(["test", "kind", "before", "fetchline", "undici"], tests, 0)}`,
  );
}
