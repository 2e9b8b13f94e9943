import assert from "node:assert/strict";
import fc from "fast-check";
import { originOf, pathAndQuery } from "../src/http/url.ts";

/** What URL parsing gives: the reference pathAndQuery() must agree with. */
function parsed(url: string): string {
  const result = URL.parse(url, "http://relative.invalid");
  return result === null ? url : result.pathname + result.search;
}

Deno.test("pathAndQuery() reads plain URLs off the string, as URL parsing would", () => {
  const cases: [string, string][] = [
    ["http://127.0.0.1:8080/items/1", "/items/1"],
    ["https://example.com", "/"],
    ["https://example.com?", "/"],
    ["https://example.com/?a=1&b=2", "/?a=1&b=2"],
    ["https://user:pw@example.com/v1.2/file.json?q=a%20b", "/v1.2/file.json?q=a%20b"],
    ["http://h/a/./b", "/a/b"],
    ["http://h/a/../b?x", "/b?x"],
    ["http://h/a/%2e%2E/b", "/b"],
    ["http://h/a b?c d", "/a%20b?c%20d"],
    ["http://h/a\\b", "/a/b"],
    ["http://h/é?é", "/%C3%A9?%C3%A9"],
    ["http://h/p?q'r", "/p?q%27r"],
    ["http://h/p#frag", "/p"],
    ["/relative/path?x=1", "/relative/path?x=1"],
  ];
  for (const [url, expected] of cases) {
    assert.equal(parsed(url), expected, `reference for ${url}`);
    assert.equal(pathAndQuery(url), expected, url);
  }
});

Deno.test("pathAndQuery() agrees with URL parsing on generated URLs that parse", () => {
  const piece = fc.stringMatching(/^[a-zA-Z0-9._~!$&'()*+,;=:@%/?#\\ "<>`{}|^é\-[\]]{0,12}$/);
  const url = fc.tuple(
    fc.constantFrom("http://", "https://", "HTTP://", ""),
    fc.constantFrom("example.com", "127.0.0.1:8080", "u:p@h", ""),
    fc.array(fc.oneof(piece, fc.constantFrom(".", "..", "%2e", "%2E.")), { maxLength: 5 }),
    fc.option(piece, { nil: undefined }),
  ).map(([scheme, host, segments, query]) =>
    `${scheme}${host}/${segments.join("/")}${query === undefined ? "" : `?${query}`}`
  );
  fc.assert(
    fc.property(url.filter((value) => URL.canParse(value, "http://relative.invalid")), (value) => {
      assert.equal(pathAndQuery(value), parsed(value), value);
    }),
    { numRuns: 5000 },
  );
});

Deno.test("originOf() gives what URL parsing gives, for URLs seen before and new ones", () => {
  const urls = [
    "http://127.0.0.1:8080/items/1",
    "http://127.0.0.1:8081/items/1",
    "http://127.0.0.1:80/x",
    "https://EXAMPLE.com:443?q",
    "https://u:p@example.com#f",
    "http://0x7f.1/",
    "http://[::1]:9000\\a",
    "HTTP://Example.COM/",
    "http:example.com/a//b",
    "http:/example.org/",
    // An empty authority: the host is the one after the slashes, different each time.
    "http:///a.example/x",
    "http:///b.example/x",
    "https://\\c.example/x",
    "https://\\d.example/x",
  ];
  // Twice each, and past the number of origins kept, each in its turn.
  const many = Array.from({ length: 100 }, (_, i) => `http://h${i}.example:${1000 + i}/p`);
  for (const url of [...urls, ...urls, ...many, ...many, ...urls]) {
    assert.equal(originOf(url), new URL(url).origin, url);
  }
  assert.throws(() => originOf("http://exa mple.com/"), TypeError);
});
