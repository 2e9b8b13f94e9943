// The shared suite's runner: the same tests on every runtime, from one source.
// An area file (tests/shared/<area>.mjs) default-exports `(env) => tests`,
// where each test is an async function or `{ runtimes, reason, run }` (run
// only on the runtimes named, reported as skipped with the reason elsewhere).
// `env` is `{ lib, fixture, runtime, assert }`.
//
// `collect()` lists the tests, so a runtime's own test API (Deno.test,
// node:test) can register each one; `runSuite()` runs them one at a time
// where there is no test API (workerd, a page), with TAP-like lines. Either
// way every test is bounded by TEST_LIMIT_MS, and each runtime's run ends
// with the line `summary()` makes.

import * as assert from "./assert.mjs";

/** The longest one test may take before it fails. */
export const TEST_LIMIT_MS = 20_000;

/**
 * Every test of `areas` (`{ name: factory }`), as `{ name, run, skip }`:
 * `name` is `<area>: <test>`, `skip` the reason when it does not run on
 * `env.runtime`. `only`, when given, is a list of area names to keep.
 */
export function collect(areas, env, only) {
  const full = { assert, ...env };
  const tests = [];
  for (const [area, factory] of Object.entries(areas)) {
    if (only !== undefined && only.length > 0 && !only.includes(area)) continue;
    for (const [name, test] of Object.entries(factory(full))) {
      const limited = typeof test === "function" ? undefined : test;
      if (limited !== undefined && !(Array.isArray(limited.runtimes) && limited.run)) {
        throw new TypeError(
          `Invalid test ${area}: ${name}: expected a function or { runtimes, reason, run }`,
        );
      }
      const skip = limited !== undefined && !limited.runtimes.includes(env.runtime)
        ? `runs on ${limited.runtimes.join(", ")} only: ${limited.reason}`
        : undefined;
      tests.push({ name: `${area}: ${name}`, run: limited?.run ?? test, skip });
    }
  }
  return tests;
}

/** Runs `run()`, failing it when it has not settled after `limitMs`. */
export async function bounded(run, limitMs = TEST_LIMIT_MS) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Test did not finish within ${limitMs} ms`)),
      limitMs,
    );
  });
  try {
    return await Promise.race([run(), limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** A runtime's closing line. */
export function summary(runtime, { passed, failed, skipped }) {
  return `shared suite on ${runtime}: ${passed} passed, ${failed} failed, ${skipped} skipped`;
}

/**
 * Runs every test of `areas` on `env.runtime`, one at a time, and returns
 * `{ lines, passed, failed, skipped }`: a TAP-like line per test, then the
 * closing line. `onLine`, when given, also gets each line as it comes.
 */
export async function runSuite(areas, env, { only, onLine = () => {} } = {}) {
  const lines = [];
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const say = (line) => {
    lines.push(line);
    onLine(line);
  };
  const tests = collect(areas, env, only);
  say(`1..${tests.length}`);
  for (const [index, test] of tests.entries()) {
    const number = index + 1;
    if (test.skip !== undefined) {
      counts.skipped++;
      say(`ok ${number} - ${test.name} # SKIP ${test.skip}`);
      continue;
    }
    try {
      await bounded(test.run);
      counts.passed++;
      say(`ok ${number} - ${test.name}`);
    } catch (error) {
      counts.failed++;
      say(`not ok ${number} - ${test.name}: ${error?.stack ?? error}`);
    }
  }
  say(summary(env.runtime, counts));
  return { lines, ...counts };
}
