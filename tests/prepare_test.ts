import assert from "node:assert/strict";
import { HttpClientConfigBuilder, HttpClientException, HttpRequest } from "../mod.ts";
import { prepareRequest } from "../src/client/call.ts";

const config = new HttpClientConfigBuilder().withBaseUrl("http://127.0.0.1:8080/api").build();

/** What prepareRequest() gives for `url`: the URL and auth it sends, or the error's message. */
function prepared(url: string): string {
  try {
    const request = prepareRequest(new HttpRequest("GET", url), config);
    return JSON.stringify([request.url, request.auth]);
  } catch (error) {
    assert.ok(error instanceof HttpClientException);
    return error.message;
  }
}

Deno.test("prepareRequest() gives the same for URLs seen before as the first time", () => {
  const urls = [
    "/items/1",
    "http://127.0.0.1:8081/items/1",
    "https://ada:s3cret@127.0.0.1/x",
    "http://ada@127.0.0.1/x",
    "http://%zz:pw@127.0.0.1/",
    "http://exa mple.com/",
    "ftp://127.0.0.1/file",
    "HTTP://Example.COM/",
  ];
  // Past the number of URLs kept, so each comes back after being dropped too.
  const many = Array.from({ length: 100 }, (_, i) => `http://h${i}.example:${1000 + i}/p`);
  const first = new Map(urls.map((url) => [url, prepared(url)]));
  assert.equal(first.get("/items/1"), JSON.stringify(["http://127.0.0.1:8080/api/items/1", null]));
  assert.equal(
    first.get("https://ada:s3cret@127.0.0.1/x"),
    '["https://127.0.0.1/x",["ada","s3cret"]]',
  );
  assert.equal(first.get("http://ada@127.0.0.1/x"), '["http://127.0.0.1/x",["ada",""]]');
  assert.match(first.get("http://%zz:pw@127.0.0.1/")!, /^Invalid URL: /);
  assert.match(first.get("http://exa mple.com/")!, /^Invalid URL: /);
  assert.match(first.get("ftp://127.0.0.1/file")!, /^Unsupported URL scheme "ftp:": /);
  for (const url of [...urls, ...many, ...urls, ...many, ...urls]) {
    if (first.has(url)) assert.equal(prepared(url), first.get(url), url);
    else assert.equal(prepared(url), JSON.stringify([url, null]), url);
  }
});
