import type { FetchLike } from "../config/client_config.ts";
import { trimHeaderValue } from "../models/request.ts";
import type { HttpRequest } from "../models/request.ts";
import { encodeBody } from "./body.ts";
import { basicAuthorization } from "./credentials.ts";
import { appendParams } from "./url.ts";

/** One request as it goes on the wire: the final URL, headers and encoded body. */
export interface WireRequest {
  readonly method: string;
  /** The absolute URL with the params appended. */
  readonly url: string;
  /** Validated headers, values trimmed of spaces and tabs as `fetch` sends them. */
  readonly headers: Readonly<Record<string, string>>;
  /** A multipart body is a `FormData`: the transport writes its boundary. */
  readonly body?: string | FormData;
}

/** A response whose body is still unread. */
export interface WireResponse {
  readonly status: number;
  /** A `Headers`, or a record with lower-case names. */
  readonly headers: Headers | Readonly<Record<string, string>>;
  /** The `Location` header, or `null`. */
  readonly location: string | null;
  /**
   * Reads the whole (decoded) body. More than `maxBytes` bytes rejects with
   * {@linkcode BodyTooLarge} without reading further.
   */
  bytes(maxBytes: number): Promise<Uint8Array>;
  /** Discards the body. */
  discard(): Promise<void>;
}

/** Sends one request and resolves once the response head has arrived. */
export type Transport = (request: WireRequest, signal: AbortSignal) => Promise<WireResponse>;

/** Thrown by {@linkcode WireResponse.bytes} when the body exceeds its limit. */
export class BodyTooLarge extends Error {
  /** Names the limit. */
  constructor(readonly maxBytes: number) {
    super(`Response body exceeds ${maxBytes} bytes`);
    this.name = "BodyTooLarge";
  }
}

/**
 * A transport over a `fetch`-compatible function: the pool's on Deno, or
 * a custom one (`withFetch`). Redirects are left to the caller
 * (`redirect: "manual"`). `extra` is merged into every `RequestInit`.
 */
export function fetchTransport(fetchLike: FetchLike, extra?: RequestInit): Transport {
  return async (request, signal) => {
    const init: RequestInit = {
      method: request.method,
      headers: request.headers,
      redirect: "manual",
      signal,
    };
    if (request.body !== undefined) init.body = request.body;
    if (extra !== undefined) Object.assign(init, extra);
    return fetchResponse(await fetchLike(request.url, init));
  };
}

function fetchResponse(response: Response): WireResponse {
  return {
    status: response.status,
    headers: response.headers,
    location: response.headers.get("location"),
    bytes: (maxBytes) => readFetchBody(response, maxBytes),
    discard: async () => await response.body?.cancel(),
  };
}

async function readFetchBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  if (maxBytes === Infinity || response.body === null) {
    return new Uint8Array(await response.arrayBuffer());
  }
  if (Number(response.headers.get("content-length") ?? 0) > maxBytes) {
    await response.body.cancel();
    throw new BodyTooLarge(maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new BodyTooLarge(maxBytes);
    chunks.push(chunk);
  }
  return concat(chunks, size);
}

/** Joins `chunks` of `size` bytes in all into one array. */
export function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The wire form of `request`: params appended, body encoded, Content-Type
 * set for it, and `auth` as a Basic `Authorization` header unless one is
 * given.
 */
export async function toWireRequest(request: HttpRequest): Promise<WireRequest> {
  const { body, contentType } = await encodeBody(request);
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
