/**
 * Signed and sender-constrained requests, with WebCrypto only:
 * {@linkcode DPoP} binds tokens to a key pair (RFC 9449) through
 * `withTokenAuth({ tokenManager, dpop })` and
 * `clientCredentialsStep({ …, dpop })`; {@linkcode httpSignatures} signs
 * each exchange with HTTP Message Signatures (RFC 9421) and
 * {@linkcode verifySignature} / {@linkcode verifyRequestSignature} check
 * them; {@linkcode contentDigest} adds `Content-Digest` (RFC 9530).
 * `mod.ts` never loads this module: a client that signs nothing never
 * loads its code.
 *
 * @example Digest and sign each request
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { contentDigest, httpSignatures, verifyRequestSignature } from "@fetchline/fetchline/signing";
 * import assert from "node:assert/strict";
 *
 * const { privateKey, publicKey } = await crypto.subtle.generateKey(
 *   { name: "Ed25519" }, false, ["sign", "verify"],
 * ) as CryptoKeyPair;
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) =>
 *   new Response(String(await verifyRequestSignature(request, { keys: { k1: publicKey } }))));
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *   .withMiddleware(
 *     contentDigest({ algorithm: "sha-256" }),
 *     httpSignatures({
 *       keyId: "k1", key: privateKey, algorithm: "ed25519",
 *       components: ["@method", "@target-uri", "content-digest", "content-type"], expiresIn: "5m",
 *     }),
 *   )
 *   .build();
 * await using client = new HttpClient(config);
 * assert.equal((await client.post("/orders", { jsonData: { id: 1 } })).text, "true");
 * ```
 *
 * @module
 */

export { DPoP } from "./src/signing/dpop.ts";
export type { DPoPProofOptions, DPoPPublicJwk } from "./src/signing/dpop.ts";
export {
  httpSignatures,
  verifyRequestSignature,
  verifySignature,
} from "./src/signing/http_signatures.ts";
export type {
  HttpSignaturesOptions,
  SignatureAlgorithm,
  VerifySignatureOptions,
} from "./src/signing/http_signatures.ts";
export { contentDigest } from "./src/signing/content_digest.ts";
export type { ContentDigestOptions } from "./src/signing/content_digest.ts";
