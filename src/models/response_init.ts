// The fields a response is made with, and the check of a caller's init: a
// key the response does not know is a TypeError naming it.

import type { HttpRequest } from "./request.ts";
import { checkKnownKeys, keysOf } from "./_validate.ts";

/** The fields of an {@linkcode HttpResponse}. */
export interface HttpResponseInit {
  /** The HTTP status code. */
  statusCode: number;
  /** Response headers: a record or a `Headers`; stored with lower-case names. */
  headers: Readonly<Record<string, string>> | Headers;
  /** The raw body. */
  content: Uint8Array;
  /** How long the exchange took, in milliseconds. */
  elapsedMs: number;
  /** The final URL, after redirects. */
  url: string;
  /** The request as sent (after hooks, with an absolute URL). */
  request: HttpRequest;
  /** The body's encoding, overriding the Content-Type charset. */
  encoding?: string | undefined;
}

const INIT_KEYS = keysOf<HttpResponseInit>({
  statusCode: true,
  headers: true,
  content: true,
  elapsedMs: true,
  url: true,
  request: true,
  encoding: true,
});

/** Throws a TypeError naming the first key of `init` that is not a field of a response. */
export function checkResponseInit(init: HttpResponseInit): void {
  checkKnownKeys("HttpResponse init", init, INIT_KEYS);
}
