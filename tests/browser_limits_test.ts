// What a browser's fetch cannot do is refused at build(), naming the
// browser. Deno is no browser: each rule is checked with a browser's globals.

import assert from "node:assert/strict";
import { checkNetwork } from "../src/config/network.ts";

const page = { document: {}, navigator: { userAgent: "Mozilla/5.0" } };
const worker = { WorkerGlobalScope: class {} };

Deno.test("a cookie jar is refused in a browser and a web worker, naming it", () => {
  assert.throws(
    () => checkNetwork({ cookies: true }, page),
    new TypeError(
      "Invalid cookies: a browser keeps cookies itself (its fetch hides Set-Cookie and drops " +
        "a Cookie header); leave them to it and do not call withCookies()",
    ),
  );
  assert.throws(
    () => checkNetwork({ cookies: true }, worker),
    /^TypeError: Invalid cookies: a web worker keeps/,
  );
});

Deno.test("a cookie jar is kept on Deno, and in a browser with a custom fetch", () => {
  checkNetwork({ cookies: true });
  checkNetwork({ cookies: true, fetch: () => {} }, page);
  checkNetwork({ cookies: undefined }, page);
  checkNetwork({}, worker);
});
