// The one JSON serializer of the library: the client sends its output and
// toCurl renders it, so a replayed cURL command sends the same bytes; in
// Python's style (the spec's) or, for servers that hash the body, compact.

const hasOwnProperty = Object.prototype.hasOwnProperty;

/** Thrown where a value is refused; collects the path while it unwinds. */
class JsonPathError {
  readonly path: string[] = [];
  constructor(readonly reason: string) {}
}

/**
 * How the JSON text is spaced: `"python"`, Python's `json.dumps` default (a
 * space after `,` and `:`), or `"compact"`, `JSON.stringify`'s (none).
 */
export type JsonStyle = "python" | "compact";

/** `style` when it is a {@linkcode JsonStyle}, else a TypeError naming `jsonStyle`. */
export function checkJsonStyle(style: unknown): JsonStyle {
  if (style === "python" || style === "compact") return style;
  const shown = typeof style === "string" ? JSON.stringify(style.slice(0, 40)) : typeof style;
  throw new TypeError(`Invalid jsonStyle: expected "python" or "compact", got ${shown}`);
}

/** One serialization: the containers being written (to find cycles), and a boxed BigInt met. */
interface Walk {
  readonly ancestors: object[];
  /** What follows a member: `", "` or `","`. */
  readonly comma: string;
  /** What follows a key: `": "` or `":"`. */
  readonly colon: string;
  /** JSON.stringify throws for a boxed BigInt, but only if nothing else fails. */
  boxedBigInt?: object;
}

/**
 * Serializes `value` as JSON in Python's default style: a space after `,` and
 * `:`, non-ASCII kept as it is (sent as UTF-8); in the `"compact"` style, the
 * very text of `JSON.stringify(value)`. Follows `JSON.stringify` for
 * `toJSON()`, boxed primitives and `undefined` members (left out of objects,
 * `null` in arrays), and refuses what JSON cannot say instead of losing it:
 * `NaN` and the infinities, `BigInt`, functions, symbols, Maps, Sets and
 * cycles throw a `TypeError` naming the path, such as `jsonData.items[2]`.
 *
 * @param value The value to serialize.
 * @param field The name the error messages start the path with.
 * @param style `"python"` (the default) or `"compact"` (what `withJsonStyle` sets).
 * @returns The JSON text.
 *
 * @example Serialize a body as the client sends it
 * ```ts
 * import { serializeJson } from "@fetchline/fetchline/utils";
 * import assert from "node:assert/strict";
 *
 * assert.equal(serializeJson({ a: [1, 2], b: "ü" }), '{"a": [1, 2], "b": "ü"}');
 * assert.equal(serializeJson({ a: [1, 2] }, "jsonData", "compact"), '{"a":[1,2]}');
 * assert.throws(() => serializeJson({ a: [NaN] }), /jsonData\.a\[0\]: NaN/);
 * ```
 */
export function serializeJson(
  value: unknown,
  field = "jsonData",
  style: "python" | "compact" = "python",
): string {
  const compact = checkJsonStyle(style) === "compact";
  const walk: Walk = { ancestors: [], comma: compact ? "," : ", ", colon: compact ? ":" : ": " };
  const json = toJsonValue(value, "");
  if (json === undefined) {
    throw new TypeError(`Invalid ${field}: undefined is not JSON-serializable`);
  }
  let text: string;
  try {
    text = write(walk, json, "");
  } catch (error) {
    if (!(error instanceof JsonPathError)) throw error;
    throw new TypeError(`Invalid ${field}${error.path.join("")}: ${error.reason}`);
  }
  // The native error, as when JSON.stringify did the writing.
  if (walk.boxedBigInt !== undefined) JSON.stringify(walk.boxedBigInt);
  return text;
}

/** What JSON.stringify writes for `value`: the result of its `toJSON()`, if it has one. */
function toJsonValue(value: unknown, key: string | number): unknown {
  if (
    typeof value === "object" && value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    return (value as { toJSON(key: string): unknown }).toJSON(String(key));
  }
  return value;
}

/**
 * `value` as JSON.stringify would write it, with the spaces, throwing where
 * it would lose or refuse data. Strings and numbers are JSON.stringify's and
 * String()'s own text; the output is joined as strings.
 */
function write(walk: Walk, value: unknown, key: string | number): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new JsonPathError(`${value} is not JSON-serializable`);
    return String(value);
  }
  if (typeof value === "object") return value === null ? "null" : writeObject(walk, value, key);
  if (typeof value === "boolean") return value ? "true" : "false";
  // Only from a boxed primitive whose valueOf() was replaced.
  if (value === undefined) return "null";
  if (typeof value === "bigint") {
    throw new JsonPathError("BigInt is not JSON-serializable; convert it to a string or number");
  }
  throw new JsonPathError(`a ${typeof value} is not JSON-serializable`);
}

function writeObject(walk: Walk, value: object, key: string | number): string {
  let text: string;
  if (Array.isArray(value)) {
    enter(walk, value);
    text = "[";
    for (let i = 0; i < value.length; i++) {
      const item = toJsonValue(value[i], i);
      if (i > 0) text += walk.comma;
      text += item === undefined ? "null" : writeMember(walk, item, i);
    }
    text += "]";
  } else {
    if (value instanceof Number || value instanceof String || value instanceof Boolean) {
      return write(walk, toJsonValue(value.valueOf(), key), key);
    }
    if (value instanceof Map || value instanceof Set) {
      throw new JsonPathError(
        `a ${value.constructor.name} is not JSON-serializable; convert it to an object or array`,
      );
    }
    const foreign = value instanceof Object ? undefined : foreignBoxedPrimitive(value);
    if (foreign !== undefined && typeof foreign !== "bigint") return write(walk, foreign, key);
    if (foreign !== undefined || value instanceof BigInt) walk.boxedBigInt ??= value;
    enter(walk, value);
    text = "{";
    // for…in with this own-key test lists what Object.keys lists, in its order.
    for (const name in value) {
      if (!hasOwnProperty.call(value, name)) continue;
      const member = toJsonValue((value as Record<string, unknown>)[name], name);
      if (member === undefined) continue;
      if (text.length > 1) text += walk.comma;
      text += `${JSON.stringify(name)}${walk.colon}${writeMember(walk, member, name)}`;
    }
    text += "}";
  }
  walk.ancestors.pop();
  return text;
}

/**
 * The primitive inside a boxed value from another realm (node:vm), which
 * `instanceof` misses but JSON.stringify writes as the primitive.
 */
function foreignBoxedPrimitive(value: object): unknown {
  try {
    switch (Object.prototype.toString.call(value)) {
      case "[object Number]":
        return Number.prototype.valueOf.call(value);
      case "[object String]":
        return String.prototype.valueOf.call(value);
      case "[object Boolean]":
        return Boolean.prototype.valueOf.call(value);
      case "[object BigInt]":
        return BigInt.prototype.valueOf.call(value);
    }
  } catch {
    // A tag that lies (Symbol.toStringTag): not a boxed primitive.
  }
  return undefined;
}

/** Refuses a container that is its own ancestor, else makes it the innermost one. */
function enter(walk: Walk, container: object): void {
  if (walk.ancestors.includes(container)) throw new JsonPathError("circular reference");
  walk.ancestors.push(container);
}

/** Writes one member, adding its key to the path of an error from below. */
function writeMember(walk: Walk, member: unknown, key: string | number): string {
  try {
    return write(walk, member, key);
  } catch (error) {
    if (error instanceof JsonPathError) {
      error.path.unshift(
        typeof key === "number"
          ? `[${key}]`
          : /^[A-Za-z_$][\w$]*$/.test(key)
          ? `.${key}`
          : `[${JSON.stringify(key)}]`,
      );
    }
    throw error;
  }
}
