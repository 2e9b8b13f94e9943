import { describeCall, HttpClientException } from "../errors.ts";
import { basicAuthorization, trimHeaderValue } from "../http/headers.ts";
import { appendParams } from "../http/url.ts";
import type { FileSource, WireRequest } from "./types.ts";
import { encodeMultipart, type FormPart } from "./multipart.ts";
import type { HttpRequest } from "../models/request.ts";
import type { FileValue } from "../models/request_fields.ts";
import { encodeForm } from "../http/url.ts";
import { runtime } from "./runtime.ts";
import { noFileSystem, RuntimeLimitError } from "./runtime_name.ts";
import { rawBodyType } from "../http/raw_body.ts";

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
