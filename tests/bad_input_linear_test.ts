// Every pass over a caller's string is linear in its length. Each case runs
// a 1 MB input on which a quadratic pass (a regex retried at every position
// of a long run) or an exponential one (a glob compiled to a backtracking
// regex) takes minutes and blocks the event loop, so no timeout can fire.
// The bound is generous on purpose: it guards the complexity class, not a speed
// (a linear pass takes well under a second even on a loaded 2-core machine,
// where 1 s was seen to be too tight; a quadratic one takes minutes).

import assert from "node:assert/strict";
import fc from "fast-check";
import { ApiKeyAuthHook, HttpRequest, LoggingRequestHook, RequestContext } from "../mod.ts";
import { toCurl } from "../utils.ts";
import { resolveUrl } from "../src/http/url.ts";
import { mergeHeaders, trimHeaderValue } from "../src/http/headers.ts";
import { pathExclusion } from "../src/auth/hooks.ts";

const MB = 1 << 20;
const BOUND_MS = 5000;

/** Runs `fn` once and asserts it returned within the bound. */
function finishesFast<T>(label: string, fn: () => T): T {
  const start = performance.now();
  const result = fn();
  const elapsed = performance.now() - start;
  assert.ok(elapsed < BOUND_MS, `${label} took ${elapsed.toFixed(0)} ms`);
  return result;
}

Deno.test("resolveUrl() joins a 1 MB path with long runs of slashes in linear time", () => {
  const run = "/".repeat(MB);
  assert.equal(
    finishesFast("inner run", () => resolveUrl("http://h", `a${run}b`)),
    `http://h/a${run}b`,
  );
  assert.equal(
    finishesFast("leading and trailing runs", () => resolveUrl("http://h", `${run}a${run}?q`)),
    "http://h/a?q",
  );
  assert.equal(
    finishesFast("base with an inner run", () => resolveUrl(`http://h${run}x${run}`, "a")),
    `http://h${run}x/a`,
  );
});

Deno.test("A 1 MB header value with an inner run of blanks is trimmed in linear time", () => {
  const value = `x${" \t".repeat(MB / 2)}y `;
  const trimmed = finishesFast("trimHeaderValue", () => trimHeaderValue(value));
  assert.equal(trimmed, value.slice(0, -1));
  const request = new HttpRequest("GET", "http://127.0.0.1/", { headers: { "X-A": value } });
  const command = finishesFast("toCurl", () => toCurl(request));
  assert.ok(command.includes(`-H 'X-A: ${trimmed}'`));
});

Deno.test("trimHeaderValue() strips spaces and tabs at both ends only", () => {
  const cases: [string, string][] = [
    ["", ""],
    [" \t ", ""],
    ["a", "a"],
    ["\t a b \t", "a b"],
    ["a\t\tb", "a\t\tb"],
    [" \u00a0a\u00a0 ", "\u00a0a\u00a0"],
  ];
  for (const [value, expected] of cases) assert.equal(trimHeaderValue(value), expected, value);
});

Deno.test("Excluded path patterns match a 1 MB path in linear time, whatever the pattern's stars", () => {
  const hook = new ApiKeyAuthHook("k", {
    excludedPathPatterns: ["*a*a*a*a*a*a*a*a*b", "/x*?*?*c"],
  });
  const path = `/${"a".repeat(MB)}`;
  const plain = new HttpRequest("GET", `http://127.0.0.1${path}`);
  assert.equal(finishesFast("no match", () => hook.shouldAuthenticate(plain)), true);
  const excluded = new HttpRequest("GET", `http://127.0.0.1${path}b`);
  assert.equal(finishesFast("a match", () => hook.shouldAuthenticate(excluded)), false);
  const x = new HttpRequest("GET", `http://127.0.0.1/x${"y".repeat(MB)}`);
  assert.equal(finishesFast("'?' pieces", () => hook.shouldAuthenticate(x)), true);
});

/** The rule the patterns follow, as a regular expression: the reference for small inputs. */
function globReference(glob: string, path: string): boolean {
  const source = [...glob].map((char) =>
    char === "*" ? "[^]*" : char === "?" ? "[^]" : char.replace(/[.+^${}()|[\]\\]/g, "\\$&")
  ).join("");
  return new RegExp(`^${source}$`).test(path);
}

Deno.test("Excluded path patterns: '*' is any run, '?' one character, the rest literal", () => {
  const cases: [string, string, boolean][] = [
    ["/public/*", "/public/a/b.css", true],
    ["/public/*", "/publicity", false],
    ["*health*", "/v1/healthz", true],
    ["/a?c", "/abc", true],
    ["/a?c", "/ac", false],
    ["/a*b*a", "/aba", true],
    ["/a*a", "/a", false],
    ["/[x].+", "/[x].+", true],
    ["/[x]", "/x", false],
    ["", "/", false],
    ["**", "/", true],
  ];
  for (const [glob, path, expected] of cases) {
    assert.equal(globReference(glob, path), expected, `reference: ${glob} ${path}`);
    assert.equal(pathExclusion([], [glob])(`http://h${path}`), expected, glob);
  }
  const text = fc.stringMatching(/^[ab?*/]{0,10}$/);
  fc.assert(
    fc.property(text, fc.stringMatching(/^[ab/]{0,12}$/), (glob, tail) => {
      const path = `/${tail}`;
      assert.equal(pathExclusion([], [glob])(`http://h${path}`), globReference(glob, path));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("Merging 100,000 headers into as many takes linear time", () => {
  const base: Record<string, string> = {};
  const extra: Record<string, string> = {};
  for (let i = 0; i < 100_000; i++) {
    base[`X-Base-${i}`] = "b";
    extra[`x-extra-${i}`] = "e";
  }
  extra["X-BASE-0"] = "e";
  const merged = finishesFast("mergeHeaders", () => mergeHeaders(base, extra));
  assert.equal(Object.keys(merged).length, 200_000, "one of the 100,001 given overrides");
  assert.equal(merged["X-BASE-0"], "e");
  assert.equal(merged["X-Base-0"], undefined);
  const request = new HttpRequest("GET", "http://127.0.0.1/", { headers: base });
  finishesFast("withHeaders", () => request.withHeaders(extra));
});

Deno.test("The logging hook reads the path of a 1 MB URL in linear time", () => {
  const lines: string[] = [];
  const log = (line: string) => void lines.push(line);
  const hook = new LoggingRequestHook({ logger: { debug: log, info: log, warn: log, error: log } });
  for (const path of ["/a".repeat(MB / 2), `/${"/".repeat(MB)}.`, `/${"%".repeat(MB)}\\`]) {
    const request = new HttpRequest("GET", `http://127.0.0.1${path}?${"&".repeat(MB)}`);
    finishesFast("beforeRequest", () => hook.beforeRequest(request, new RequestContext(request)));
  }
  assert.equal(lines.length, 3);
});

Deno.test("Masking a 1 MB URL or message with long runs that fit no pattern takes linear time", async () => {
  const { redactText, redactUrl } = await import("../src/masking/views.ts");
  const run = (text: string) => text.repeat(MB);
  finishesFast(
    "unparsed user-info with a run of blanks",
    () => redactUrl(`http://a@[${run(" ")}x`),
  );
  finishesFast("a run of scheme characters with no colon", () => redactText(`?${run("a")}`));
  finishesFast("a scheme, a slash and a run of brackets", () => redactText(`?a:/${run(")")}x`));
  finishesFast("a query value and a run of brackets", () => redactText(`?a=${run(")")}x`));
  assert.equal(
    finishesFast("a credential pair before a run", () => redactText(`?token=t${run(")")} x`)),
    `?token=***${run(")")} x`,
  );
});
