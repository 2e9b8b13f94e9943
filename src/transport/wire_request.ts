import { describeCall, HttpClientException } from "../errors.ts";
import { basicAuthorization, trimHeaderValue } from "../http/headers.ts";
import { appendParams } from "../http/url.ts";
import type { WireRequest } from "./types.ts";
import type { HttpRequest } from "../models/request.ts";
import type { FileValue } from "../models/request_fields.ts";
import { encodeForm } from "../http/form.ts";
import { runtime } from "./runtime.ts";
import { rawBodyType } from "../http/raw_body.ts";

/** A body ready for `fetch`, and the Content-Type it needs. */
export interface EncodedBody {
  readonly body?: WireRequest["body"];
  /**
   * A Content-Type to set when the request has none; `null` means remove any
   * given one, because `fetch` writes the multipart boundary itself.
   */
  readonly contentType?: string | null;
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
 * (with `data` as further fields) as multipart/form-data, reading path
 * strings from disk now: only then is the result a promise.
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
    return encodeMultipart(request, request.files).then((body) => ({ body, contentType: null }));
  }
  if (request.data !== undefined) {
    return { body: encodeForm(request.data), contentType: "application/x-www-form-urlencoded" };
  }
  return NO_BODY;
}

async function encodeMultipart(
  request: HttpRequest,
  files: Readonly<Record<string, FileValue>>,
): Promise<FormData> {
  const form = new FormData();
  for (const [key, value] of Object.entries(request.data ?? {})) form.append(key, String(value));
  for (const [field, value] of Object.entries(files)) {
    if (typeof value === "string") {
      form.append(field, new Blob([await readPath(request, field, value)]), basename(value));
    } else if (value instanceof Blob) {
      form.append(field, value, value instanceof File ? value.name : field);
    } else {
      form.append(field, new Blob([value as Uint8Array<ArrayBuffer>]), field);
    }
  }
  return form;
}

async function readPath(
  request: HttpRequest,
  field: string,
  path: string,
): Promise<Uint8Array<ArrayBuffer>> {
  try {
    return await runtime.readFile(path) as Uint8Array<ArrayBuffer>;
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
 * given. A promise only when files are read from disk: the common case
 * costs no turn of the microtask queue.
 */
export function toWireRequest(request: HttpRequest): WireRequest | Promise<WireRequest> {
  const encoded = encodeBody(request);
  return encoded instanceof Promise
    ? encoded.then((body) => wireRequest(request, body))
    : wireRequest(request, encoded);
}

function wireRequest(request: HttpRequest, { body, contentType }: EncodedBody): WireRequest {
  const headers: Record<string, string> = {};
  let hasType = false;
  let hasAuthorization = false;
  for (const name in request.headers) {
    const lower = name.toLowerCase();
    if (lower === "content-type") {
      if (contentType === null) continue;
      hasType = true;
    }
    if (lower === "authorization") hasAuthorization = true;
    headers[name] = trimHeaderValue(request.headers[name] as string);
  }
  if (typeof contentType === "string" && !hasType) headers["content-type"] = contentType;
  if (request.auth !== undefined && !hasAuthorization) {
    headers["authorization"] = basicAuthorization(...request.auth);
  }
  const url = appendParams(request.url, request.params);
  return body === undefined
    ? { method: request.method, url, headers }
    : { method: request.method, url, headers, body };
}
