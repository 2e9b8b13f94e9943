import type { FetchLike } from "../config/client_config.ts";
import type { HttpRequest } from "../models/request.ts";
import { encodeBody } from "./body.ts";
import { basicAuthorization } from "./credentials.ts";
import { appendParams } from "./url.ts";

/**
 * Sends one request over `fetchLike` and returns the response with its body
 * unread; redirects are left to the caller (`redirect: "manual"`). The
 * request's `auth` becomes a Basic `Authorization` header unless it has one.
 */
export async function fetchOnce(
  request: HttpRequest,
  fetchLike: FetchLike,
  signal: AbortSignal,
): Promise<Response> {
  const { body, contentType } = await encodeBody(request);
  const headers = new Headers(request.headers);
  if (contentType === null) headers.delete("content-type");
  else if (contentType !== undefined && !headers.has("content-type")) {
    headers.set("content-type", contentType);
  }
  if (request.auth !== undefined && !headers.has("authorization")) {
    headers.set("authorization", basicAuthorization(...request.auth));
  }
  const init: RequestInit = { method: request.method, headers, redirect: "manual", signal };
  if (body !== undefined) init.body = body;
  return await fetchLike(appendParams(request.url, request.params), init);
}
