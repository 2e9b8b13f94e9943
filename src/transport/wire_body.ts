import { HttpClientException } from "../errors.ts";
import type { FileValue, FormValue, HttpRequest } from "../models/request.ts";
import { redactUrl } from "../models/_redact.ts";
import { readFile } from "./runtime.ts";

/** A body ready for `fetch`, and the Content-Type it needs. */
export interface EncodedBody {
  readonly body?: string | FormData;
  /**
   * A Content-Type to set when the request has none; `null` means remove any
   * given one, because `fetch` writes the multipart boundary itself.
   */
  readonly contentType?: string | null;
}

const NO_BODY: EncodedBody = Object.freeze({});

/**
 * Encodes the body of `request`: `jsonData` as the shared serializer's JSON
 * text, `data` alone as a URL-encoded form, `files` (with `data` as further
 * fields) as multipart/form-data, reading path strings from disk now: only
 * then is the result a promise.
 */
export function encodeBody(request: HttpRequest): EncodedBody | Promise<EncodedBody> {
  if (request.jsonText !== undefined) {
    return { body: request.jsonText, contentType: "application/json" };
  }
  if (request.files !== undefined) {
    return encodeMultipart(request, request.files).then((body) => ({ body, contentType: null }));
  }
  if (request.data !== undefined) {
    return { body: encodeForm(request.data), contentType: "application/x-www-form-urlencoded" };
  }
  return NO_BODY;
}

/** The URL-encoded form text of `data`, in insertion order. */
export function encodeForm(data: Readonly<Record<string, FormValue>>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(data)) search.append(key, String(value));
  return search.toString();
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
    return await readFile(path) as Uint8Array<ArrayBuffer>;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.name : String(cause);
    throw new HttpClientException(
      `Cannot read files.${field} from ${JSON.stringify(path)} (${reason}): ${request.method} ${
        redactUrl(request.url)
      }`,
      { request, cause },
    );
  }
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}
