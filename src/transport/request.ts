// A request as it goes on the wire: the final URL, the headers and the
// encoded body (form, JSON, raw, or multipart with files opened by the
// runtime).

import { describeCall, HttpClientException, noFileSystem, RuntimeLimitError } from "../errors.ts";
import { basicAuthorization, trimHeaderValue } from "../http/headers.ts";
import { appendParams, encodeForm } from "../http/url.ts";
import { rawBodyType } from "../http/raw_body.ts";
import type { HttpRequest } from "../models/request.ts";
import type { FileValue } from "../models/request.ts";
import type { FileSource, WireRequest } from "./types.ts";
import { runtime } from "./runtime.ts";

/** A body ready for `fetch`, and the Content-Type it needs. */
export interface EncodedBody {
  readonly body?: WireRequest["body"];
  /** A Content-Type to set when the request has none. */
  readonly contentType?: string;
  /**
   * The Content-Type replaces any the request has: a multipart body's
   * boundary is only known here.
   */
  readonly replaceType?: boolean;
  /**
   * The length of a stream body known before reading it (a multipart body
   * reading files): it replaces any Content-Length the request has.
   */
  readonly length?: number;
}

const NO_BODY: EncodedBody = Object.freeze({});

/**
 * The stream bodies handed to a transport: a stream is read as it is sent,
 * and a runtime may send a stream read to its end as an empty body, so a
 * second send is refused instead.
 */
const sentStreams = new WeakSet<ReadableStream>();

function streamSentTwice(request: HttpRequest): HttpClientException {
  return new HttpClientException(
    `Cannot send a ReadableStream body twice (it is read as it is sent): ${describeCall(request)}`,
    { request },
  );
}

/**
 * Encodes the body of `request`: `jsonData` as the shared serializer's JSON
 * text, a raw `body` as it is (an `ArrayBuffer` seen as bytes) with the
 * Content-Type of its kind, `data` alone as a URL-encoded form, `files`
 * (with `data` as further fields) as multipart/form-data, opening path
 * strings now and reading them as the body is sent: only then is the
 * result a promise.
 *
 * @throws {HttpClientException} For a `ReadableStream` body already read
 * (a request sent before): a stream is sent once.
 */
export function encodeBody(request: HttpRequest): EncodedBody | Promise<EncodedBody> {
  if (request.jsonText !== undefined) {
    return { body: request.jsonText, contentType: "application/json" };
  }
  const raw = request.body;
  if (raw !== undefined) {
    if (raw instanceof ReadableStream) {
      if (!raw.locked && !sentStreams.has(raw)) sentStreams.add(raw);
      else throw streamSentTwice(request);
    }
    const body = raw instanceof ArrayBuffer ? new Uint8Array(raw) : raw;
    return { body, contentType: rawBodyType(raw) };
  }
  if (request.files !== undefined) {
    return multipartOf(request, request.files);
  }
  if (request.data !== undefined) {
    return { body: encodeForm(request.data), contentType: "application/x-www-form-urlencoded" };
  }
  return NO_BODY;
}

/**
 * The multipart body of `files` (with `data` as fields before them). A path
 * is opened now, for this attempt, and read only as the body is sent.
 */
async function multipartOf(
  request: HttpRequest,
  files: Readonly<Record<string, FileValue>>,
): Promise<EncodedBody> {
  const parts: FormPart[] = [];
  for (const [name, value] of Object.entries(request.data ?? {})) {
    parts.push({ name, value: String(value) });
  }
  for (const [name, value] of Object.entries(files)) {
    if (typeof value === "string") {
      const content = await openPath(request, name, value);
      parts.push({ name, filename: basename(value), content });
    } else if (value instanceof Blob) {
      parts.push({ name, filename: value instanceof File ? value.name : name, content: value });
    } else {
      // A copy: the caller may change the array before the body is sent.
      parts.push({ name, filename: name, content: new Blob([value as Uint8Array<ArrayBuffer>]) });
    }
  }
  const { body, length, contentType } = encodeMultipart(parts);
  return body instanceof ReadableStream
    ? { body, contentType, replaceType: true, length }
    : { body, contentType, replaceType: true };
}

async function openPath(request: HttpRequest, field: string, path: string): Promise<FileSource> {
  // Not a file that failed to open: a call this runtime can never make.
  if (!runtime.files) throw new RuntimeLimitError(noFileSystem(`files.${field}`));
  try {
    return await runtime.openFile(path);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.name : String(cause);
    throw new HttpClientException(
      `Cannot read files.${field} from ${JSON.stringify(path)} (${reason}): ${
        describeCall(request)
      }`,
      { request, cause },
    );
  }
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}

/**
 * The wire form of `request`: params appended, body encoded, Content-Type
 * set for it, and `auth` as a Basic `Authorization` header unless one is
 * given. A promise only when files are opened on disk: the common case
 * costs no turn of the microtask queue.
 */
export function toWireRequest(request: HttpRequest): WireRequest | Promise<WireRequest> {
  const encoded = encodeBody(request);
  return encoded instanceof Promise
    ? encoded.then((body) => wireRequest(request, body))
    : wireRequest(request, encoded);
}

function wireRequest(
  request: HttpRequest,
  { body, contentType, replaceType, length }: EncodedBody,
): WireRequest {
  const headers: Record<string, string> = {};
  let hasType = false;
  let hasAuthorization = false;
  for (const name in request.headers) {
    const lower = name.toLowerCase();
    if (lower === "content-type") {
      if (replaceType === true) continue;
      hasType = true;
    }
    if (length !== undefined && lower === "content-length") continue;
    if (lower === "authorization") hasAuthorization = true;
    headers[name] = trimHeaderValue(request.headers[name] as string);
  }
  if (contentType !== undefined && !hasType) headers["content-type"] = contentType;
  if (request.auth !== undefined && !hasAuthorization) {
    headers["authorization"] = basicAuthorization(...request.auth);
  }
  const url = appendParams(request.url, request.params);
  if (body === undefined) return { method: request.method, url, headers };
  return length === undefined
    ? { method: request.method, url, headers, body }
    : { method: request.method, url, headers, body, bodyLength: length };
}

// The multipart/form-data encoder. A file path is never read here: the
// runtime opens it as a source with its size, read only as the body is sent.
// The bytes are those `FormData` sends through `fetch` (Deno's and undici's
// agree): names and filenames escape `"`, CR and LF as %22, %0D and %0A,
// line breaks in names and string values become CRLF first (not in
// filenames), and a part's Content-Type is its Blob's type or
// application/octet-stream.

/** One part's content: text or bytes in memory, or a file read as it is sent. */
export type PartContent = Uint8Array | Blob | FileSource;

/** A form field or a file, in the order they are sent. */
export type FormPart =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly filename: string; readonly content: PartContent };

/** A multipart body: a Blob when every part is one, else a stream read once. */
export interface Multipart {
  readonly body: Blob | ReadableStream<Uint8Array>;
  /** The body's length in bytes, from the parts' sizes (a stream's too). */
  readonly length: number;
  readonly contentType: string;
}

const encoder = new TextEncoder();

const escape = (text: string) =>
  text.replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/"/g, "%22");
const crlf = (text: string) => text.replace(/\r\n|\r|\n/g, "\r\n");

/** A boundary no part can hold by chance: 24 random hex digits. */
function newBoundary(): string {
  const random = crypto.getRandomValues(new Uint8Array(12));
  return `----fetchline-${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * Encodes `parts` as multipart/form-data. The body is a `Blob` when every
 * file is one, else a stream that reads each file source in turn; its
 * length is known either way, from the parts' sizes.
 */
export function encodeMultipart(parts: readonly FormPart[]): Multipart {
  const boundary = newBoundary();
  const chunks: PartContent[] = [];
  let text = "";
  for (const part of parts) {
    text += `--${boundary}\r\nContent-Disposition: form-data; name="${escape(crlf(part.name))}"`;
    if ("value" in part) {
      text += `\r\n\r\n${crlf(part.value)}\r\n`;
      continue;
    }
    const type = part.content instanceof Blob && part.content.type !== ""
      ? part.content.type
      : "application/octet-stream";
    text += `; filename="${escape(part.filename)}"\r\nContent-Type: ${type}\r\n\r\n`;
    chunks.push(encoder.encode(text), part.content);
    text = "\r\n";
  }
  chunks.push(encoder.encode(`${text}--${boundary}--\r\n`));
  const contentType = `multipart/form-data; boundary=${boundary}`;
  const blobs = chunks.every((chunk) => chunk instanceof Blob || chunk instanceof Uint8Array);
  let length = 0;
  for (const chunk of chunks) length += chunk instanceof Uint8Array ? chunk.byteLength : chunk.size;
  const blob = blobs ? new Blob(chunks as BlobPart[]) : undefined;
  // A Blob that came out short is streamed part by part instead: Bun copies
  // the Blob of a file (`Bun.file()`) into another Blob as empty.
  return {
    body: blob?.size === length ? blob : concatenated(chunks),
    length,
    contentType,
  };
}

/**
 * The chunks one after another as a stream, each source streamed when its
 * turn comes (a file is opened then) and read only as the transport asks;
 * cancelling it cancels the one read.
 */
function concatenated(chunks: readonly PartContent[]): ReadableStream<Uint8Array> {
  let index = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (index < chunks.length) {
        if (reader === undefined) {
          const chunk = chunks[index] as PartContent;
          if (chunk instanceof Uint8Array) {
            index++;
            if (chunk.byteLength > 0) return controller.enqueue(chunk);
            continue;
          }
          reader = chunk.stream().getReader();
        }
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        reader = undefined;
        index++;
      }
      controller.close();
    },
    cancel: (reason) => reader?.cancel(reason),
  }, { highWaterMark: 0 });
}
