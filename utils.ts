/**
 * Utilities: {@linkcode serializeJson}, the one JSON serializer whose text
 * the client sends.
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
