/**
 * Recording: {@linkcode HarRecorder}, a middleware that records a client's
 * exchanges as a HAR 1.2 log (the HTTP Archive of browsers' developer
 * tools), secrets masked as the logs mask them, and the types of the
 * format ({@linkcode Har}). `MockTransport.fromHar()`
 * (`@fetchline/fetchline/testing`) replays a recording. `mod.ts` never
 * loads this module: a client that records nothing never loads its code.
 *
 * For: recording a session to inspect it or replay it in tests. Guide:
 * [docs/testing.md](./docs/testing.md).
 *
 * @example Record, then replay without a network
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { HarRecorder } from "@fetchline/fetchline/har";
 * import { MockTransport } from "@fetchline/fetchline/testing";
 * import assert from "node:assert/strict";
 *
 * const recorder = new HarRecorder();
 * const api = new MockTransport().route("GET", "/hello", { body: "hi" });
 * await using recording = new HttpClient(
 *   new HttpClientConfigBuilder().withFetch(api.fetch).withMiddleware(recorder).build(),
 * );
 * await recording.get("https://api.test/hello");
 *
 * const har = JSON.parse(JSON.stringify(recorder.toHar()));
 * await using replaying = new HttpClient(
 *   new HttpClientConfigBuilder().withFetch(MockTransport.fromHar(har).fetch).build(),
 * );
 * assert.equal((await replaying.get("https://api.test/hello")).text, "hi");
 * ```
 *
 * @module
 */

export { HarRecorder } from "./src/har/recorder.ts";
export type { HarRecorderOptions } from "./src/har/recorder.ts";
export type {
  Har,
  HarCache,
  HarContent,
  HarCookie,
  HarCreator,
  HarEntry,
  HarLog,
  HarNameValue,
  HarPage,
  HarParam,
  HarPostData,
  HarRequest,
  HarResponse,
  HarTimings,
} from "./src/har/types.ts";
