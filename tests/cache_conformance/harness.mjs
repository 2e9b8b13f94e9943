// Runs the vendored public HTTP cache test suite (suite/, http-tests/cache-tests)
// against a cache reached through `send`, on Deno or Node: the suite's own
// client engine drives the exchanges (through the global `fetch`, which is
// pointed at `send` for the test URLs while it runs) and grades them.
//
// The selection is the suite's for a private (browser) cache: every test but
// the CDN-only ones and those a browser skips; a test is graded unless its
// kind is `check` (informational), 214 at the pinned commit.

import suites from "./suite/tests/index.mjs";
import { getResults, runTests } from "./suite/test-engine/client/runner.mjs";
import { determineTestResult, resultTypes } from "./suite/test-engine/lib/results.mjs";

/** @typedef {{ suite: string, id: string, kind: string, outcome: string, passed: boolean, detail: string }} Row */

/**
 * The exchange a test asks `fetch` for, as a plain request: its method, its
 * header list (Fetch's `cache: "no-cache"` mode adds `Cache-Control:
 * max-age=0`, as a browser does), its body.
 *
 * @param {string} url
 * @param {{ method?: string, headers?: [string, string][], body?: string, cache?: string }} init
 * @returns {{ url: string, method: string, headers: [string, string][], body: string | undefined }}
 */
export function requestOf(url, init) {
  const headers = [...(init.headers ?? [])];
  const hasCacheControl = headers.some(([name]) => name.toLowerCase() === "cache-control");
  if (init.cache === "no-cache" && !hasCacheControl) headers.push(["Cache-Control", "max-age=0"]);
  return { url, method: init.method ?? "GET", headers, body: init.body };
}

/**
 * What the suite's engine reads of a `fetch` response, for any status
 * (the suite's server answers 999 when a request should have been
 * conditional, which a `Response` cannot hold).
 *
 * @param {number} status
 * @param {Iterable<[string, string]>} headers
 * @param {Uint8Array} body
 */
export function responseOf(status, headers, body) {
  const list = new Headers();
  for (const [name, value] of headers) list.append(name, value);
  return {
    status,
    statusText: "",
    headers: list,
    text: () => Promise.resolve(new TextDecoder().decode(body)),
  };
}

/** The name of a result type of the suite (`pass`, `fail`, `optional_fail`, ...). */
function outcomeName(type) {
  return Object.keys(resultTypes).find((name) => resultTypes[name] === type) ?? "unknown";
}

/**
 * Runs the selection against `send` (the suite's server at `base`) and
 * grades it. `only` restricts it to these test IDs (their dependencies
 * are then graded as not run).
 *
 * @param {string} base The server's URL, without a trailing slash.
 * @param {(request: ReturnType<typeof requestOf>) => Promise<ReturnType<typeof responseOf>>} send
 * @param {{ only?: ReadonlySet<string>, chunkSize?: number }} [options]
 * @returns {Promise<{ rows: Row[], passed: number, graded: number }>}
 */
export async function runSuite(base, send, options = {}) {
  const { only, chunkSize = 25 } = options;
  const chosen = suites.map((suite) => ({
    ...suite,
    tests: suite.tests.filter((test) => only === undefined || only.has(test.id)),
  }));
  const original = globalThis.fetch;
  globalThis.fetch = (url, init = {}) =>
    String(url).startsWith(`${base}/test/`)
      ? send(requestOf(String(url), init))
      : original(url, init);
  try {
    await runTests(chosen, true, base, chunkSize);
  } finally {
    globalThis.fetch = original;
  }
  const results = getResults();
  /** @type {Row[]} */
  const rows = [];
  for (const suite of chosen) {
    for (const test of suite.tests) {
      if (test.cdn_only === true || test.browser_skip === true || test.kind === "check") continue;
      const type = determineTestResult(suites, test.id, results);
      const result = results[test.id];
      rows.push({
        suite: suite.id,
        id: test.id,
        kind: test.kind ?? "required",
        outcome: outcomeName(type),
        passed: type === resultTypes.pass,
        detail: Array.isArray(result) ? `${result[0]}: ${result[1]}` : "",
      });
    }
  }
  return { rows, passed: rows.filter((row) => row.passed).length, graded: rows.length };
}

/**
 * The lines that tell `rows`: one per test (`pass`, else its outcome and
 * why), then the counts per category and the closing count.
 *
 * @param {Row[]} rows
 */
export function report(rows) {
  const lines = rows.map((row) =>
    `${row.passed ? "pass" : row.outcome.padEnd(4)} ${row.suite}/${row.id}${
      row.passed || row.detail === "" ? "" : ` (${row.detail})`
    }`
  );
  for (const [suite, counts] of perSuite(rows)) {
    lines.push(`${suite}: ${counts.passed} of ${counts.graded}`);
  }
  return lines;
}

/**
 * The counts per category of `rows`, in the suite's order.
 *
 * @param {Row[]} rows
 * @returns {Map<string, { passed: number, graded: number }>}
 */
export function perSuite(rows) {
  const counts = new Map();
  for (const row of rows) {
    const count = counts.get(row.suite) ?? { passed: 0, graded: 0 };
    count.graded++;
    if (row.passed) count.passed++;
    counts.set(row.suite, count);
  }
  return counts;
}
