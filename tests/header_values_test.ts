import assert from "node:assert/strict";
import { HttpRequest, HttpResponse } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { singleAttemptClient } from "./helpers.ts";

/** Two Set-Cookie lines, the first with the comma of its date, and a repeated other header. */
function twoCookies(): Response {
  const headers = new Headers([["set-cookie", "a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT"]]);
  headers.append("set-cookie", "b=2; Path=/");
  headers.append("x-many", "one");
  headers.append("x-many", "two");
  return new Response("ok", { headers });
}

const COOKIES = ["a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "b=2; Path=/"];

Deno.test("HttpResponse.headerValues() keeps two Set-Cookie lines apart", async () => {
  await using server = startFixtureServer();
  server.route("/two", twoCookies);
  await using client = singleAttemptClient(server.url);
  const response = await client.get("/two");
  assert.deepEqual(response.headerValues("Set-Cookie"), COOKIES);
  // The record keeps its shape: the lines joined, as before.
  assert.equal(response.headers["set-cookie"], COOKIES.join(", "));
  // Read before and after the record is built: the same answer.
  assert.deepEqual(response.headerValues("set-cookie"), COOKIES);
  assert.deepEqual(response.headerValues("X-Many"), ["one, two"]);
  assert.deepEqual(response.headerValues("x-absent"), []);
  // A copy each time: changing it changes nothing in the response.
  response.headerValues("set-cookie").pop();
  assert.deepEqual(response.headerValues("set-cookie"), COOKIES);
});

Deno.test("HttpResponse.headerValues() keeps them apart on a streamed response and once read", async () => {
  await using server = startFixtureServer();
  server.route("/two", twoCookies);
  await using client = singleAttemptClient(server.url);
  await using streamed = await client.stream("GET", "/two");
  assert.deepEqual(streamed.headerValues("set-cookie"), COOKIES);
  const read = await streamed.read();
  assert.deepEqual(read.headerValues("set-cookie"), COOKIES);
  assert.equal(read.text, "ok");
});

Deno.test("HttpResponse.headerValues() reads a constructed response's headers", () => {
  const request = new HttpRequest("GET", "http://127.0.0.1/");
  const init = {
    statusCode: 200,
    content: new Uint8Array(),
    elapsedMs: 1,
    url: request.url,
    request,
  };
  const headers = new Headers([["Set-Cookie", COOKIES[0]!], ["Set-Cookie", COOKIES[1]!]]);
  const fromHeaders = new HttpResponse({ ...init, headers });
  assert.deepEqual(fromHeaders.headerValues("set-cookie"), COOKIES);
  assert.equal(fromHeaders.headers["set-cookie"], COOKIES.join(", "));
  // A record has one value a name; its letter case does not matter.
  const fromRecord = new HttpResponse({ ...init, headers: { "Set-Cookie": "c=3" } });
  assert.deepEqual(fromRecord.headerValues("SET-COOKIE"), ["c=3"]);
  assert.deepEqual(fromRecord.headerValues("x-absent"), []);
  // A response made from another's headers keeps the lines apart.
  const copied = new HttpResponse({ ...init, headers: fromHeaders.headers });
  assert.deepEqual(copied.headerValues("set-cookie"), COOKIES);
  // The lines kept apart do not show in the record's keys, spread or JSON.
  assert.deepEqual(Object.keys(copied.headers), ["set-cookie"]);
  assert.equal(
    JSON.stringify(copied.headers),
    JSON.stringify({ "set-cookie": COOKIES.join(", ") }),
  );
});
