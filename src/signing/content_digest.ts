// contentDigest(): the Content-Digest of each request's body as sent
// (RFC 9530), as an exchange-level middleware.

import type { MiddlewareFunction } from "../hooks/hook_interfaces.ts";
import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { settleBody } from "./body.ts";
import { toBase64 } from "./structured_fields.ts";

/** Options of {@linkcode contentDigest}. */
export interface ContentDigestOptions {
  /** The hash: `sha-256` (the default) or `sha-512`. */
  algorithm?: "sha-256" | "sha-512" | undefined;
}

const OPTION_KEYS = /* @__PURE__ */ keysOf<ContentDigestOptions>({ algorithm: true });

const HASHES = { "sha-256": "SHA-256", "sha-512": "SHA-512" } as const;

/**
 * A middleware that adds `Content-Digest` (RFC 9530) to each request with a
 * body: the hash of the bytes sent, for every body kind (JSON, a form, a
 * string, bytes, a Blob, multipart files given as Blobs, whose body is then
 * sent as those exact bytes with their boundary). A `Content-Digest` the
 * request has is replaced. A request without a body gets none. A
 * `ReadableStream` body is a TypeError at the call: its digest is known only
 * once it is sent, and no runtime's `fetch` sends trailers; so is a file
 * given by path. Register it before `httpSignatures` to sign the digest.
 *
 * @example Send a SHA-256 digest
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { contentDigest } from "@fetchline/fetchline/signing";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   (request) => new Response(request.headers.get("content-digest")),
 * );
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *   .withMiddleware(contentDigest({ algorithm: "sha-256" }))
 *   .build();
 * await using client = new HttpClient(config);
 * const response = await client.post("/", { jsonData: { hello: "world" } });
 * // RFC 9530's own example: the SHA-256 of {"hello": "world"}.
 * assert.equal(response.text, "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:");
 * ```
 */
export function contentDigest(options: ContentDigestOptions = {}): MiddlewareFunction {
  checkKnownKeys("contentDigest options", options, OPTION_KEYS);
  const algorithm = options.algorithm ?? "sha-256";
  const hash = HASHES[algorithm as keyof typeof HASHES];
  if (hash === undefined) {
    throw new TypeError(
      `Invalid algorithm: expected "sha-256" or "sha-512", got ${describeType(algorithm)}`,
    );
  }
  return async (request, next) => {
    const settled = await settleBody(request, "contentDigest");
    if (settled.bytes === undefined) return next(request);
    const digest = new Uint8Array(
      await crypto.subtle.digest(hash, settled.bytes as Uint8Array<ArrayBuffer>),
    );
    const headers = Object.fromEntries(
      Object.entries(settled.request.headers ?? {}).filter(([name]) =>
        name.toLowerCase() !== "content-digest"
      ),
    );
    headers["Content-Digest"] = `${algorithm}=:${toBase64(digest)}:`;
    return next(settled.request.with({ headers }));
  };
}
