// The part of Structured Field Values (RFC 8941) that message signatures
// use: serialising strings, integers, byte sequences, parameters and inner
// lists, and parsing a dictionary (Signature-Input, Signature). Hand-written:
// the well-kept parsers are packages of their own, and a signer must carry
// no dependency.

/** A bare item: an integer or decimal, a string, a token, a byte sequence, a boolean. */
export type BareItem = number | string | Token | Uint8Array | boolean;

/** A token (an unquoted identifier such as `sha-256`), told apart from a string. */
export class Token {
  /** Wraps the token's text. */
  constructor(readonly value: string) {}
}

/** Parameters: names (lower-case) to bare items, in their order. */
export type Parameters = Map<string, BareItem>;

/** An item with its parameters. */
export interface Item {
  readonly value: BareItem;
  readonly params: Parameters;
}

/** An inner list with its parameters. */
export interface InnerList {
  readonly items: readonly Item[];
  readonly params: Parameters;
}

/** A dictionary member: an item or an inner list. */
export type Member = Item | InnerList;

/** True for an inner list. */
export function isInnerList(member: Member): member is InnerList {
  return "items" in member;
}

const KEY = /^[a-z*][a-z0-9_\-.*]*$/;

/** `text` as an sf-string; a character outside printable ASCII is a TypeError naming `field`. */
export function serializeString(text: string, field = "value"): string {
  if (!/^[\x20-\x7e]*$/.test(text)) {
    throw new TypeError(
      `Invalid ${field}: a structured field string holds printable ASCII only`,
    );
  }
  return `"${text.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/** A bare item in its serialisation. */
export function serializeBareItem(value: BareItem, field = "value"): string {
  if (typeof value === "string") return serializeString(value, field);
  if (typeof value === "boolean") return value ? "?1" : "?0";
  if (value instanceof Token) return value.value;
  if (value instanceof Uint8Array) return `:${toBase64(value)}:`;
  if (!Number.isSafeInteger(value)) {
    throw new TypeError(`Invalid ${field}: expected an integer, got ${value}`);
  }
  return String(value);
}

/** Parameters in their serialisation (`;name=value`, `;name` for true). */
export function serializeParams(params: Parameters): string {
  let text = "";
  for (const [name, value] of params) {
    if (!KEY.test(name)) throw new TypeError(`Invalid parameter name ${JSON.stringify(name)}`);
    text += value === true ? `;${name}` : `;${name}=${serializeBareItem(value, name)}`;
  }
  return text;
}

/** An item or an inner list in its serialisation. */
export function serializeMember(member: Member): string {
  if (!isInnerList(member)) return serializeBareItem(member.value) + serializeParams(member.params);
  const items = member.items.map((item) =>
    serializeBareItem(item.value) + serializeParams(item.params)
  );
  return `(${items.join(" ")})${serializeParams(member.params)}`;
}

/** `Uint8Array.prototype.toBase64` (ES2026) where the runtime has it: Deno does, Node 22 does not. */
const nativeToBase64 = (Uint8Array.prototype as {
  toBase64?: (
    this: Uint8Array,
    options?: { alphabet?: "base64" | "base64url"; omitPadding?: boolean },
  ) => string;
}).toBase64;

/** base64url without padding (RFC 7515), as JWS wants it. */
export function toBase64Url(bytes: Uint8Array): string {
  if (nativeToBase64 !== undefined) {
    return nativeToBase64.call(bytes, { alphabet: "base64url", omitPadding: true });
  }
  return toBase64(bytes).replace(/[+/=]/g, (char) => char === "+" ? "-" : char === "/" ? "_" : "");
}

/** Standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  if (nativeToBase64 !== undefined) return nativeToBase64.call(bytes);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Bytes of standard base64 (padded or not); `undefined` when it is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

/** The reason a field does not parse. */
class ParseError extends Error {}

/** A reader over a field's text. */
class Reader {
  #at = 0;
  constructor(readonly text: string) {}
  get done(): boolean {
    return this.#at >= this.text.length;
  }
  peek(): string {
    return this.text[this.#at] ?? "";
  }
  next(): string {
    return this.text[this.#at++] ?? "";
  }
  skipSpaces(ows = false): void {
    while (this.peek() === " " || (ows && this.peek() === "\t")) this.#at++;
  }
  expect(char: string): void {
    if (this.next() !== char) throw new ParseError(`expected ${char}`);
  }
  match(pattern: RegExp): string {
    pattern.lastIndex = this.#at;
    const found = pattern.exec(this.text);
    if (found === null || found.index !== this.#at) return "";
    this.#at += found[0].length;
    return found[0];
  }
}

/**
 * The members of a dictionary field, by key; `undefined` when the text is
 * not a dictionary (a peer's malformed field is an answer, not an error).
 */
export function parseDictionary(text: string): Map<string, Member> | undefined {
  const reader = new Reader(text);
  const members = new Map<string, Member>();
  try {
    reader.skipSpaces();
    while (!reader.done) {
      const key = parseKey(reader);
      let member: Member;
      if (reader.peek() === "=") {
        reader.next();
        member = parseMember(reader);
      } else {
        member = { value: true, params: parseParams(reader) };
      }
      members.set(key, member);
      reader.skipSpaces(true);
      if (reader.done) break;
      reader.expect(",");
      reader.skipSpaces(true);
      if (reader.done) throw new ParseError("trailing comma");
    }
    return members;
  } catch (error) {
    if (error instanceof ParseError) return undefined;
    throw error;
  }
}

/** The parameters of a component identifier's text such as `@query-param;name="Pet"`. */
export function parseParamsText(text: string): Parameters | undefined {
  const reader = new Reader(text);
  try {
    const params = parseParams(reader);
    return reader.done ? params : undefined;
  } catch (error) {
    if (error instanceof ParseError) return undefined;
    throw error;
  }
}

function parseMember(reader: Reader): Member {
  if (reader.peek() !== "(") return { value: parseBareItem(reader), params: parseParams(reader) };
  reader.next();
  const items: Item[] = [];
  for (let count = 0; count < 1024; count++) {
    reader.skipSpaces();
    if (reader.peek() === ")") {
      reader.next();
      return { items, params: parseParams(reader) };
    }
    items.push({ value: parseBareItem(reader), params: parseParams(reader) });
    const after = reader.peek();
    if (after !== " " && after !== ")") throw new ParseError("bad inner list");
  }
  throw new ParseError("inner list too long");
}

function parseParams(reader: Reader): Parameters {
  const params: Parameters = new Map();
  while (reader.peek() === ";") {
    reader.next();
    reader.skipSpaces();
    const key = parseKey(reader);
    let value: BareItem = true;
    if (reader.peek() === "=") {
      reader.next();
      value = parseBareItem(reader);
    }
    params.set(key, value);
  }
  return params;
}

function parseKey(reader: Reader): string {
  const key = reader.match(/[a-z*][a-z0-9_\-.*]*/y);
  if (key === "") throw new ParseError("expected a key");
  return key;
}

function parseBareItem(reader: Reader): BareItem {
  const char = reader.peek();
  if (char === '"') return parseString(reader);
  if (char === ":") {
    reader.next();
    const text = reader.match(/[A-Za-z0-9+/=]*/y);
    reader.expect(":");
    const bytes = fromBase64(text);
    if (bytes === undefined) throw new ParseError("bad byte sequence");
    return bytes;
  }
  if (char === "?") {
    reader.next();
    const bit = reader.next();
    if (bit !== "0" && bit !== "1") throw new ParseError("bad boolean");
    return bit === "1";
  }
  const number = reader.match(/-?\d{1,15}(\.\d{1,3})?/y);
  if (number !== "") return Number(number);
  const token = reader.match(/[A-Za-z*][\w!#$%&'*+\-.^`|~:/]*/y);
  if (token !== "") return new Token(token);
  throw new ParseError("expected an item");
}

function parseString(reader: Reader): string {
  reader.expect('"');
  let text = "";
  for (;;) {
    const char = reader.next();
    if (char === "") throw new ParseError("unterminated string");
    if (char === '"') return text;
    if (char === "\\") {
      const escaped = reader.next();
      if (escaped !== '"' && escaped !== "\\") throw new ParseError("bad escape");
      text += escaped;
    } else if (char < " " || char > "~") {
      throw new ParseError("bad string character");
    } else {
      text += char;
    }
  }
}
