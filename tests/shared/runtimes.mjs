// What the shared suite allows for, runtime by runtime, where a runtime's
// own fetch does more than the library asks of it: the areas that count
// server calls or follow redirects share these.

/**
 * The most calls one library attempt may make, on runtimes whose fetch
 * resends a request by itself when a reused connection fails before any
 * answer (retries.mjs says what was seen); on the others the count is exact.
 */
export const RESENDS = { bun: 2, workerd: 2, chromium: 3, firefox: 10 };

/** The runtimes whose fetch lets the library see and follow a redirect. */
export const FOLLOWS = ["deno", "node", "bun", "workerd"];

/** Why the redirect tests skip elsewhere. */
export const HIDDEN = "a browser's fetch hides a redirect's status and Location (opaque redirect)";

/**
 * An assertion that the server counted the calls `attempts` library
 * attempts make on `runtime`: exactly, or within {@linkcode RESENDS}.
 */
export function callsAssertion(runtime, assert) {
  return (calls, attempts, message) => {
    const most = RESENDS[runtime];
    if (most === undefined) return assert.equal(calls, attempts, message);
    assert.ok(
      calls >= attempts && calls <= most * attempts,
      `${message}: ${calls} calls for ${attempts} attempts`,
    );
  };
}
