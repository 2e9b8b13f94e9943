// What the send path, the views and toCurl need to know of a raw request
// body, in one place so they agree: the Content-Type it goes with, whether
// it can be sent again, and how it is shown without its content. The type
// itself is here too, below the request, which re-exports it.

/**
 * A raw request body, sent as it is. A string, bytes, an `ArrayBuffer` or a
 * `Blob` can be sent again (on a retry, a 401 refresh, a 307 or 308
 * redirect); a `ReadableStream` is read once, as it is sent: a call with one
 * is never retried, and a 307, 308 or 401 that would need it again is
 * returned as the response. Without a Content-Type of its own, the request
 * is sent with `text/plain;charset=UTF-8` for a string, the Blob's `type`
 * when it has one, else `application/octet-stream`.
 *
 * @example Upload a stream and a string
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   async (request) => new Response(`${request.headers.get("content-type")} ${await request.text()}`),
 * );
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * const upload = new Blob(["chunk 1, ", "chunk 2"]).stream();
 * assert.equal((await client.put("/file", { body: upload })).text, "application/octet-stream chunk 1, chunk 2");
 * assert.equal((await client.post("/note", { body: "hi" })).text, "text/plain;charset=UTF-8 hi");
 * ```
 */
export type RequestBody = string | Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>;

/** The Content-Type of a string body, as `fetch` would set it. */
export const TEXT_TYPE = "text/plain;charset=UTF-8";

/** The Content-Type of any other body when its Blob has no type. */
export const BYTES_TYPE = "application/octet-stream";

/**
 * The Content-Type a raw body goes with when the request sets none:
 * {@linkcode TEXT_TYPE} for a string, a Blob's own `type` when it has one,
 * else {@linkcode BYTES_TYPE}.
 */
export function rawBodyType(body: RequestBody): string {
  if (typeof body === "string") return TEXT_TYPE;
  if (body instanceof Blob && body.type !== "") return body.type;
  return BYTES_TYPE;
}

/**
 * True for a body that can be sent once only (a `ReadableStream`): a call
 * with one is never retried, and a redirect or an auth refresh that would
 * need it again is not followed.
 */
export function isOneShot(body: RequestBody | undefined): boolean {
  return body instanceof ReadableStream;
}

/**
 * A raw body by its kind and size, for a view or a log line: never its
 * content, which may hold a secret. A string's size is in UTF-8 bytes, as
 * it is sent.
 */
export function describeRawBody(body: RequestBody): string {
  if (typeof body === "string") return `string(${utf8Length(body)})`;
  if (body instanceof ReadableStream) return "ReadableStream";
  if (body instanceof Blob) return `${body.constructor.name}(${body.size})`;
  return `${body.constructor.name}(${body.byteLength})`;
}

/** The UTF-8 length of `text`, a lone surrogate counted as U+FFFD (3 bytes), as it is encoded. */
export function utf8Length(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) length += 1;
    else if (code < 0x800) length += 2;
    else if (code >= 0xd800 && code < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 4;
      i++;
    } else length += 3;
  }
  return length;
}

/** What {@linkcode comparableBody} reads of a request. */
interface BodyFields {
  readonly files?: unknown;
  readonly jsonText?: string | undefined;
  readonly data?: unknown;
  readonly body?: RequestBody | undefined;
}

/**
 * The body of `request` as text that equal bodies share (its kind, then its
 * content; bytes a character each), or `undefined` for one that cannot be
 * compared (a stream, a Blob, files): what the cache keys a QUERY on and
 * dedupe() compares.
 */
export function comparableBody(request: BodyFields): string | undefined {
  if (request.files !== undefined) return undefined;
  if (request.jsonText !== undefined) return `json ${request.jsonText}`;
  if (request.data !== undefined) return `form ${JSON.stringify(request.data)}`;
  const { body } = request;
  if (body === undefined) return "";
  if (typeof body === "string") return `text ${body}`;
  if (!(body instanceof Uint8Array || body instanceof ArrayBuffer)) return undefined;
  const bytes = body instanceof Uint8Array ? body : new Uint8Array(body);
  let text = "bytes ";
  for (let at = 0; at < bytes.length; at += 8192) {
    text += String.fromCharCode(...bytes.subarray(at, at + 8192));
  }
  return text;
}
