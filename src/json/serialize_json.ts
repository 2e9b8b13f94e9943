// The one JSON serializer of the library: the client sends its output and
// toCurl renders it, so a replayed cURL command sends the same bytes.

import { Utf8Writer } from "./_utf8_writer.ts";

const hasOwnProperty = Object.prototype.hasOwnProperty;

/** Thrown where a value is refused; collects the path while it unwinds. */
class JsonPathError {
  readonly path: string[] = [];
  constructor(readonly reason: string) {}
}

/** One serialization: where it writes, and what it must remember on the way. */
class Walk {
  readonly out = new Utf8Writer();
  /** The containers being written, to find cycles; JSON.stringify keeps such a list too. */
  readonly ancestors: object[] = [];
  /** The first boxed BigInt met; JSON.stringify throws for it, but only if nothing else fails. */
  boxedBigInt: object | undefined;
}

/**
 * Serializes `value` as JSON in Python's default style: a space after `,` and
 * `:`, non-ASCII kept as it is (sent as UTF-8). Follows `JSON.stringify` for
 * `toJSON()`, boxed primitives and `undefined` members (left out of objects,
 * `null` in arrays), and refuses what JSON cannot say instead of losing it:
 * `NaN` and the infinities, `BigInt`, functions, symbols, Maps, Sets and
 * cycles throw a `TypeError` naming the path, such as `jsonData.items[2]`.
 *
 * @param value The value to serialize.
 * @param field The name the error messages start the path with.
 * @returns The JSON text.
 *
 * @example Serialize a body as the client sends it
 * ```ts
 * import { serializeJson } from "@fetchline/fetchline/utils";
 * import assert from "node:assert/strict";
 *
 * assert.equal(serializeJson({ a: [1, 2], b: "ü" }), '{"a": [1, 2], "b": "ü"}');
 * assert.throws(() => serializeJson({ a: [NaN] }), /jsonData\.a\[0\]: NaN/);
 * ```
 */
export function serializeJson(value: unknown, field = "jsonData"): string {
  const walk = new Walk();
  try {
    const json = toJsonValue(value, "");
    if (json === undefined) {
      throw new TypeError(`Invalid ${field}: undefined is not JSON-serializable`);
    }
    try {
      writeJsonValue(walk, json, "");
    } catch (error) {
      if (!(error instanceof JsonPathError)) throw error;
      throw new TypeError(`Invalid ${field}${error.path.join("")}: ${error.reason}`);
    }
    // The native error, as when JSON.stringify did the writing.
    if (walk.boxedBigInt !== undefined) JSON.stringify(walk.boxedBigInt);
    return walk.out.finish();
  } finally {
    walk.out.release();
  }
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

/** Writes `value` as JSON.stringify would, throwing where it would lose or refuse data. */
function writeJsonValue(walk: Walk, value: unknown, key: string | number): void {
  // Plain typeof tests, most frequent first: TurboFan makes each a type check.
  if (typeof value === "string") return walk.out.string(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new JsonPathError(`${value} is not JSON-serializable`);
    return walk.out.number(value);
  }
  if (typeof value === "object") {
    return value === null ? walk.out.null() : writeObject(walk, value, key);
  }
  if (typeof value === "boolean") return walk.out.boolean(value);
  // Only from a boxed primitive whose valueOf() was replaced.
  if (typeof value === "undefined") return walk.out.null();
  if (typeof value === "bigint") {
    throw new JsonPathError("BigInt is not JSON-serializable; convert it to a string or number");
  }
  throw new JsonPathError(`a ${typeof value} is not JSON-serializable`);
}

function writeObject(walk: Walk, value: object, key: string | number): void {
  if (Array.isArray(value)) {
    enter(walk, value);
    writeArray(walk, value);
  } else {
    if (value instanceof Number || value instanceof String || value instanceof Boolean) {
      return writeJsonValue(walk, toJsonValue(value.valueOf(), key), key);
    }
    if (value instanceof Map || value instanceof Set) {
      throw new JsonPathError(
        `a ${value.constructor.name} is not JSON-serializable; convert it to an object or array`,
      );
    }
    const foreign = value instanceof Object ? undefined : foreignBoxedPrimitive(value);
    if (foreign !== undefined && typeof foreign !== "bigint") {
      return writeJsonValue(walk, foreign, key);
    }
    if (foreign !== undefined || value instanceof BigInt) walk.boxedBigInt ??= value;
    enter(walk, value);
    writeMembers(walk, value);
  }
  walk.ancestors.pop();
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

function writeArray(walk: Walk, array: readonly unknown[]): void {
  const out = walk.out;
  out.byte(0x5b); // [
  for (let i = 0, length = array.length; i < length; i++) {
    if (i > 0) out.comma();
    const item = toJsonValue(array[i], i);
    if (item === undefined) out.null();
    else writeMember(walk, item, i);
  }
  out.byte(0x5d); // ]
}

function writeMembers(walk: Walk, object: object): void {
  const out = walk.out;
  out.byte(0x7b); // {
  let empty = true;
  // for…in with this own-key test lists what Object.keys lists, but V8 then
  // reads each member by its slot in the enum cache instead of looking the
  // name up: about a tenth of the whole walk on a body of records.
  for (const name in object) {
    if (!hasOwnProperty.call(object, name)) continue;
    const member = toJsonValue((object as Record<string, unknown>)[name], name);
    if (member === undefined) continue;
    if (!empty) out.comma();
    empty = false;
    out.key(name);
    writeMember(walk, member, name);
  }
  out.byte(0x7d); // }
}

/** Writes one member, adding its key to the path of an error from below. */
function writeMember(walk: Walk, member: unknown, key: string | number): void {
  try {
    writeJsonValue(walk, member, key);
  } catch (error) {
    if (error instanceof JsonPathError) {
      error.path.unshift(typeof key === "number" ? `[${key}]` : pathSegment(key));
    }
    throw error;
  }
}

function pathSegment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
