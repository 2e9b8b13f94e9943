// A request's body as the signers see it: the bytes it sends and the
// Content-Type they go with, fixed before the signature or the digest is
// made so that what is hashed is what goes on the wire (a JSON body's text,
// a form's encoding, a multipart body with its boundary, a Blob's bytes).

import { encodeForm } from "../http/url.ts";
import { headerValue } from "../http/headers.ts";
import { rawBodyType } from "../http/raw_body.ts";
import type { HttpRequest } from "../models/request.ts";

/** A request whose body is raw bytes (or none), with the bytes it sends. */
export interface SettledBody {
  /** The request to send: its body raw, its Content-Type set. */
  readonly request: HttpRequest;
  /** The bytes of its body; `undefined` for a request without one. */
  readonly bytes: Uint8Array | undefined;
}

const encoder = new TextEncoder();

/**
 * `request` with its body turned into the raw body it sends and its
 * Content-Type header set as the transport would set it, and the body's
 * bytes. A `ReadableStream` body is a TypeError naming `feature`: its bytes
 * are known only once sent, and no runtime's `fetch` sends a trailer to
 * carry what depends on them. A file given by path is one too: it is read
 * by the transport as it is sent.
 */
export async function settleBody(request: HttpRequest, feature: string): Promise<SettledBody> {
  const type = headerValue(request.headers, "content-type");
  const withBody = (body: string | Uint8Array, contentType: string, bytes: Uint8Array) => {
    const changed = request.with({ jsonData: undefined, data: undefined, files: undefined, body });
    return {
      request: type === undefined ? changed.withHeaders({ "Content-Type": contentType }) : changed,
      bytes,
    };
  };
  if (request.jsonText !== undefined) {
    const text = request.jsonText;
    return withBody(text, "application/json", encoder.encode(text));
  }
  const raw = request.body;
  if (raw instanceof ReadableStream) {
    throw new TypeError(
      `${feature} cannot cover a ReadableStream body: its bytes are known only once it is sent, ` +
        "and this runtime's fetch cannot send them in a trailer; give the body as bytes, a string or a Blob",
    );
  }
  if (raw !== undefined) {
    const bytes = typeof raw === "string"
      ? encoder.encode(raw)
      : raw instanceof Blob
      ? new Uint8Array(await raw.arrayBuffer())
      : raw instanceof ArrayBuffer
      ? new Uint8Array(raw)
      : raw;
    const contentType = rawBodyType(raw);
    if (type !== undefined) return { request, bytes };
    return { request: request.withHeaders({ "Content-Type": contentType }), bytes };
  }
  if (request.files !== undefined) return await multipart(request, feature);
  if (request.data !== undefined) {
    const text = encodeForm(request.data);
    return withBody(text, "application/x-www-form-urlencoded", encoder.encode(text));
  }
  return { request, bytes: undefined };
}

/** The multipart body `fetch` would send for `files` (and `data`), as bytes with their boundary. */
async function multipart(request: HttpRequest, feature: string): Promise<SettledBody> {
  const form = new FormData();
  for (const [name, value] of Object.entries(request.data ?? {})) form.append(name, String(value));
  for (const [name, value] of Object.entries(request.files ?? {})) {
    if (typeof value === "string") {
      throw new TypeError(
        `${feature} cannot cover files.${name}, a file given by path (read only as it is sent): ` +
          "give it as a Blob or File",
      );
    }
    if (value instanceof Blob) {
      form.append(name, value, value instanceof File ? value.name : name);
    } else {
      form.append(name, new Blob([(value as Uint8Array).slice()]), name);
    }
  }
  const encoded = new Response(form);
  const bytes = new Uint8Array(await encoded.arrayBuffer());
  const contentType = encoded.headers.get("content-type")!;
  const changed = request.with({ data: undefined, files: undefined, body: bytes });
  // The boundary is the body's own: any Content-Type the request had is replaced.
  const headers = Object.fromEntries(
    Object.entries(changed.headers ?? {}).filter(([name]) => name.toLowerCase() !== "content-type"),
  );
  return { request: changed.with({ headers: { ...headers, "Content-Type": contentType } }), bytes };
}
