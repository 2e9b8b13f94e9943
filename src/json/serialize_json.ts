// The one JSON serializer of the library: the client sends its output and
// toCurl renders it, so a replayed cURL command sends the same bytes.

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

// The output of serializeJson. Writing the UTF-8 bytes of the text in one pass
// and decoding them once beats letting JSON.stringify write a compact text and
// inserting the spaces afterwards: any pass over that text costs about as
// much as JSON.stringify itself.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const SPACE = 0x20;
const HEX = "0123456789abcdef";

/** The escapes JSON.stringify writes for the control characters that have one. */
const SHORT_ESCAPES: Readonly<Record<number, number>> = {
  0x08: 0x62, // \b
  0x09: 0x74, // \t
  0x0a: 0x6e, // \n
  0x0c: 0x66, // \f
  0x0d: 0x72, // \r
};

/**
 * From this length on, a string is escaped by JSON.stringify, many times
 * faster per character than the loop here, and its text joins the output as
 * it is; below it, the cost of the two native calls is not worth it.
 */
const LONG_STRING = 128;

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * A finished writer leaves its buffer here for the next one, up to this size:
 * reusing it saves the page faults of a fresh one, at the cost of keeping it.
 */
const KEEP_BYTES = 1 << 22;
let spare: Uint8Array | undefined;

/** Collects the text as UTF-8 bytes, and long strings as they are. */
class Utf8Writer {
  /** The bytes not yet decoded; `length` of them are written. */
  bytes: Uint8Array;
  length = 0;
  /** The text before those bytes. */
  #decoded: string[] = [];

  constructor() {
    // Taking the spare buffer (rather than sharing it) keeps a serializeJson
    // called from a toJSON() during another one from writing into its buffer.
    this.bytes = spare ?? new Uint8Array(1 << 16);
    spare = undefined;
  }

  /** Makes room for `count` more bytes; returns the buffer to write them to. */
  reserve(count: number): Uint8Array {
    if (this.length + count > this.bytes.length) this.#grow(count);
    return this.bytes;
  }

  /** Writes one ASCII character. */
  byte(c: number): void {
    this.reserve(1)[this.length++] = c;
  }

  /** Writes `, ` between two items. */
  comma(): void {
    this.#pair(COMMA);
  }

  /** Writes the key of an object member and the `: ` after it. */
  key(name: string): void {
    // Keys are short and plain ASCII almost always: this loop, without the
    // branches of string() and its room for escapes, costs less. Any other
    // key is left to string().
    const bytes = this.reserve(name.length + 4);
    let at = this.length;
    bytes[at++] = QUOTE;
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i);
      if (c > BACKSLASH ? c >= 0x80 : c < 0x20 || c === QUOTE || c === BACKSLASH) {
        this.string(name);
        this.#pair(COLON);
        return;
      }
      bytes[at++] = c;
    }
    bytes[at++] = QUOTE;
    bytes[at++] = COLON;
    bytes[at++] = SPACE;
    this.length = at;
  }

  /** Writes `null`. */
  null(): void {
    const bytes = this.reserve(4);
    const at = this.length;
    bytes[at] = 0x6e; // n
    bytes[at + 1] = 0x75; // u
    bytes[at + 2] = 0x6c; // l
    bytes[at + 3] = 0x6c; // l
    this.length = at + 4;
  }

  /** Writes `true` or `false`. */
  boolean(value: boolean): void {
    const bytes = this.reserve(5);
    let at = this.length;
    if (value) {
      bytes[at++] = 0x74; // t
      bytes[at++] = 0x72; // r
      bytes[at++] = 0x75; // u
    } else {
      bytes[at++] = 0x66; // f
      bytes[at++] = 0x61; // a
      bytes[at++] = 0x6c; // l
      bytes[at++] = 0x73; // s
    }
    bytes[at++] = 0x65; // e
    this.length = at;
  }

  /** Writes a finite number as JSON.stringify writes it. */
  number(value: number): void {
    // Most numbers in a body are integers or have a few decimals (prices,
    // rates, scores): writing their digits costs less than String().
    if ((value | 0) === value) return this.#integer(value | 0);
    // When thousandths / 1000 gives the value back, that decimal reads back
    // as the value and is the shortest that does, so it is what String()
    // writes: a shorter decimal is a whole number of thousandths too, and
    // below 2 ** 31 thousandths two of those never read back as one double.
    const thousandths = value * 1000;
    if ((thousandths | 0) === thousandths && thousandths / 1000 === value) {
      return this.#thousandths(thousandths);
    }
    this.ascii(String(value));
  }

  /** Writes text that is ASCII only. */
  ascii(text: string): void {
    const bytes = this.reserve(text.length);
    let at = this.length;
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** Writes `text` as a JSON string, escaped exactly as JSON.stringify escapes it. */
  string(text: string): void {
    if (text.length >= LONG_STRING) {
      this.#decode();
      this.#decoded.push(JSON.stringify(text));
      return;
    }
    // At most 6 bytes per UTF-16 unit (`\u001f`), and the quotes.
    const bytes = this.reserve(text.length * 6 + 2);
    let at = this.length;
    bytes[at++] = QUOTE;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      // Most characters are lower-case letters: one comparison decides those.
      if (c > BACKSLASH ? c < 0x80 : c >= 0x20 && c !== QUOTE && c !== BACKSLASH) {
        bytes[at++] = c;
      } else if (c < 0x80) {
        at = writeAsciiEscape(bytes, at, c);
      } else if (c < 0x800) {
        bytes[at++] = 0xc0 | (c >> 6);
        bytes[at++] = 0x80 | (c & 0x3f);
      } else if (c < 0xd800 || c >= 0xe000) {
        at = writeThreeBytes(bytes, at, c);
      } else {
        const next = text.charCodeAt(i + 1);
        if (c < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
          at = writeFourBytes(bytes, at, 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00));
          i++;
        } else {
          at = writeUnicodeEscape(bytes, at, c); // a lone surrogate, as well-formed JSON.stringify
        }
      }
    }
    bytes[at++] = QUOTE;
    this.length = at;
  }

  /** Returns the text written. */
  finish(): string {
    // Most bodies are one run of bytes: decoded as the whole text, with no join.
    if (this.#decoded.length === 0) {
      return this.length === 0 ? "" : decoder.decode(this.bytes.subarray(0, this.length));
    }
    this.#decode();
    return this.#decoded.join("");
  }

  /** Hands the buffer on to the next writer, unless it grew too large to keep. */
  release(): void {
    if (this.bytes.length <= KEEP_BYTES) spare = this.bytes;
  }

  #pair(c: number): void {
    const bytes = this.reserve(2);
    bytes[this.length] = c;
    bytes[this.length + 1] = SPACE;
    this.length += 2;
  }

  /** Writes a 32-bit integer; -0 as 0, as JSON.stringify does. */
  #integer(value: number): void {
    const bytes = this.reserve(11);
    // In int32 arithmetic (`| 0`) throughout: a float `%` is a call to fmod.
    if (value < 0) {
      bytes[this.length++] = 0x2d; // -
      if (value === -0x80000000) return this.ascii("2147483648");
      value = -value;
    }
    let digits = 1;
    for (let rest = value; rest >= 10; rest = (rest / 10) | 0) digits++;
    let at = this.length + digits;
    this.length = at;
    do {
      bytes[--at] = 0x30 + value % 10;
      value = (value / 10) | 0;
    } while (value > 0);
  }

  /** Writes `thousandths / 1000`, not an integer, without trailing zeros. */
  #thousandths(thousandths: number): void {
    if (thousandths < 0) {
      this.byte(0x2d); // -
      thousandths = -thousandths; // 2 ** 31 at most: out of the int32 range, but exact
    }
    const whole = (thousandths / 1000) | 0;
    const fraction = (thousandths - whole * 1000) | 0;
    this.#integer(whole);
    const bytes = this.reserve(4);
    let at = this.length;
    bytes[at++] = 0x2e; // .
    bytes[at++] = 0x30 + ((fraction / 100) | 0);
    if (fraction % 100 !== 0) {
      bytes[at++] = 0x30 + ((fraction / 10) | 0) % 10;
      if (fraction % 10 !== 0) bytes[at++] = 0x30 + fraction % 10;
    }
    this.length = at;
  }

  #decode(): void {
    if (this.length === 0) return;
    this.#decoded.push(decoder.decode(this.bytes.subarray(0, this.length)));
    this.length = 0;
  }

  #grow(count: number): void {
    let size = this.bytes.length * 2;
    while (size < this.length + count) size *= 2;
    const bytes = new Uint8Array(size);
    bytes.set(this.bytes.subarray(0, this.length));
    this.bytes = bytes;
  }
}

function writeAsciiEscape(bytes: Uint8Array, at: number, c: number): number {
  const short = c === QUOTE || c === BACKSLASH ? c : SHORT_ESCAPES[c];
  if (short === undefined) return writeUnicodeEscape(bytes, at, c);
  bytes[at] = BACKSLASH;
  bytes[at + 1] = short;
  return at + 2;
}

/** Writes `\uxxxx` with lower-case hex digits, as JSON.stringify does. */
function writeUnicodeEscape(bytes: Uint8Array, at: number, c: number): number {
  bytes[at] = BACKSLASH;
  bytes[at + 1] = 0x75; // u
  bytes[at + 2] = HEX.charCodeAt(c >> 12);
  bytes[at + 3] = HEX.charCodeAt((c >> 8) & 0xf);
  bytes[at + 4] = HEX.charCodeAt((c >> 4) & 0xf);
  bytes[at + 5] = HEX.charCodeAt(c & 0xf);
  return at + 6;
}

function writeThreeBytes(bytes: Uint8Array, at: number, c: number): number {
  bytes[at] = 0xe0 | (c >> 12);
  bytes[at + 1] = 0x80 | ((c >> 6) & 0x3f);
  bytes[at + 2] = 0x80 | (c & 0x3f);
  return at + 3;
}

function writeFourBytes(bytes: Uint8Array, at: number, codePoint: number): number {
  bytes[at] = 0xf0 | (codePoint >> 18);
  bytes[at + 1] = 0x80 | ((codePoint >> 12) & 0x3f);
  bytes[at + 2] = 0x80 | ((codePoint >> 6) & 0x3f);
  bytes[at + 3] = 0x80 | (codePoint & 0x3f);
  return at + 4;
}
