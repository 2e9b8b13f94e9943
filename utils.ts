/**
 * Utilities: {@linkcode toCurl}, which renders a request as a cURL command
 * that replays it byte for byte, {@linkcode shellQuote}, and
 * {@linkcode serializeJson}, the one JSON serializer whose text the client
 * sends and toCurl renders.
 *
 * For: turning a request into a command to replay in a shell, and the JSON
 * text the client sends. Guide: [docs/requests.md](./docs/requests.md),
 * "A request as a cURL command".
 *
 * @example Serialize a body as the client sends it
 * ```ts
 * import { serializeJson } from "@fetchline/fetchline/utils";
 * import assert from "node:assert/strict";
 *
 * assert.equal(serializeJson({ a: [1, 2] }), '{"a": [1, 2]}');
 * ```
 *
 * @module
 */

export { serializeJson } from "./src/json/serialize_json.ts";
export { toCurl } from "./src/models/request.ts";
export { shellQuote } from "./src/curl/curl.ts";
