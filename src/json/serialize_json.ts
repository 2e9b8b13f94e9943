// The one JSON serializer of the library: the client sends its output and
// toCurl renders it, so a replayed cURL command sends the same bytes.

/** Thrown inside the serializer; collects the path while it unwinds. */
class JsonPathError {
  readonly path: string[] = [];
  constructor(readonly reason: string) {}
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
 */
export function serializeJson(value: unknown, field = "jsonData"): string {
  try {
    const text = write(value, "", new Set());
    if (text === undefined) throw new JsonPathError("undefined is not JSON-serializable");
    return text;
  } catch (error) {
    if (!(error instanceof JsonPathError)) throw error;
    throw new TypeError(`Invalid ${field}${error.path.join("")}: ${error.reason}`);
  }
}

function write(value: unknown, key: string, ancestors: Set<object>): string | undefined {
  if (
    typeof value === "object" && value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new JsonPathError(`${value} is not JSON-serializable`);
      return String(value);
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
      return undefined;
    case "bigint":
      throw new JsonPathError("BigInt is not JSON-serializable; convert it to a string or number");
    case "function":
    case "symbol":
      throw new JsonPathError(`a ${typeof value} is not JSON-serializable`);
  }
  if (value === null) return "null";
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    return write(value.valueOf(), key, ancestors);
  }
  if (value instanceof Map || value instanceof Set) {
    throw new JsonPathError(
      `a ${value.constructor.name} is not JSON-serializable; convert it to an object or array`,
    );
  }
  const object = value as object;
  if (ancestors.has(object)) throw new JsonPathError("circular reference");
  ancestors.add(object);
  const text = Array.isArray(object)
    ? writeArray(object, ancestors)
    : writeObject(object, ancestors);
  ancestors.delete(object);
  return text;
}

function writeArray(array: readonly unknown[], ancestors: Set<object>): string {
  let text = "[";
  for (let i = 0; i < array.length; i++) {
    let item: string | undefined;
    try {
      item = write(array[i], String(i), ancestors);
    } catch (error) {
      if (error instanceof JsonPathError) error.path.unshift(`[${i}]`);
      throw error;
    }
    text += (i === 0 ? "" : ", ") + (item ?? "null");
  }
  return text + "]";
}

function writeObject(object: object, ancestors: Set<object>): string {
  let text = "{";
  let first = true;
  for (const key of Object.keys(object)) {
    let item: string | undefined;
    try {
      item = write((object as Record<string, unknown>)[key], key, ancestors);
    } catch (error) {
      if (error instanceof JsonPathError) error.path.unshift(pathSegment(key));
      throw error;
    }
    if (item === undefined) continue;
    text += (first ? "" : ", ") + JSON.stringify(key) + ": " + item;
    first = false;
  }
  return text + "}";
}

function pathSegment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
