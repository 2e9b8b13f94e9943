/**
 * Testing: {@linkcode MockTransport}, a transport that answers a client's
 * requests from routes in memory (method and URL pattern → a reply, or a
 * function of the request returning one), records every request, and
 * fails a request no route matches with
 * {@linkcode UnmatchedRequestException}: tests of code that uses the
 * client need no server and reach no network. Plug it in with
 * `withFetch(mock.fetch)`.
 *
 * For: tests of code that calls an API, with no server and no network.
 * Guide: [docs/testing.md](./docs/testing.md).
 *
 * @example Test code that calls an API
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { MockTransport } from "@fetchline/fetchline/testing";
 * import assert from "node:assert/strict";
 *
 * const mock = new MockTransport().route("GET", "https://api.test/health", { json: { ok: true } });
 * await using client = new HttpClient(new HttpClientConfigBuilder().withFetch(mock.fetch).build());
 * const response = await client.get("https://api.test/health");
 * assert.deepEqual(response.json(), { ok: true });
 * assert.equal(mock.calls.length, 1);
 * ```
 *
 * @module
 */

export {
  MockCall,
  MockTransport,
  UnmatchedRequestException,
} from "./src/testing/mock_transport.ts";
export type {
  HarMatchField,
  HarReplayOptions,
  MockHandler,
  MockPattern,
  MockReply,
  MockReplyInit,
  UrlMatcher,
} from "./src/testing/mock_transport.ts";
