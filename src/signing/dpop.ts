// DPoP (RFC 9449): a key pair that proves possession of a sender-constrained
// token. The token pipeline takes one (`withTokenAuth({ tokenManager, dpop })`,
// `clientCredentialsStep({ …, dpop })`) through the structural interface the
// auth layer declares, so a client that does not use DPoP never loads this.

import type { Exchange, MiddlewareFunction } from "../hooks/hook_interfaces.ts";
import { headerValue } from "../http/headers.ts";
import { isOneShot } from "../http/raw_body.ts";
import { defineRedactedInspect } from "../masking/views.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { toBase64Url } from "./structured_fields.ts";

/** The public key of a DPoP key pair, as a JWK with only its public members. */
export type DPoPPublicJwk =
  | { readonly kty: "EC"; readonly crv: "P-256"; readonly x: string; readonly y: string }
  | { readonly kty: "OKP"; readonly crv: "Ed25519"; readonly x: string };

/** What a proof is made for. */
export interface DPoPProofOptions {
  /** The request's method (`htm`). */
  method: string;
  /** The request's URL: `htu` is it without query and fragment. */
  url: string | URL;
  /** The access token the request carries: its hash goes in `ath`. */
  accessToken?: string | undefined;
  /** The server's nonce; default: the last one the URL's origin gave. */
  nonce?: string | undefined;
}

const PROOF_KEYS = /* @__PURE__ */ keysOf<DPoPProofOptions>({
  method: true,
  url: true,
  accessToken: true,
  nonce: true,
});

/** How many servers' nonces are remembered; the oldest goes first. */
const MAX_NONCES = 256;

const encoder = new TextEncoder();

/** base64url without padding (RFC 7515). */
const base64url = toBase64Url;

const jsonPart = (value: unknown) => base64url(encoder.encode(JSON.stringify(value)));

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/**
 * A DPoP key pair (RFC 9449) and the nonces servers gave it. Made by
 * {@linkcode DPoP.generate} (ES256, the private key not extractable) or
 * from a key pair of one's own ({@linkcode DPoP.fromKeyPair}: ES256 or
 * EdDSA with Ed25519); given to `withTokenAuth({ tokenManager, dpop })` and
 * `clientCredentialsStep({ …, dpop })`, it binds the tokens to the key:
 * each request the token auth hook authenticates carries a fresh proof
 * (`htm`, `htu` without query and fragment, `iat`, a new `jti`, `ath`)
 * and `Authorization: DPoP <token>`, on every retry, redirect hop and
 * resend; the token request carries one too. A `DPoP-Nonce` challenge
 * (`use_dpop_nonce`, a 400 from the authorization server or a 401 from the
 * resource server) is answered by one resend with the nonce, not counted
 * as a retry; each server's latest nonce is remembered (by origin) for the
 * next proof. A request whose body is a stream cannot be resent: the
 * challenge is its response. Proofs are credentials (the `DPoP` header is
 * masked everywhere and dropped off-origin); views of this object show the
 * algorithm and public key only.
 *
 * @example Bind client-credentials tokens to a DPoP key
 * ```ts
 * import { clientCredentialsStep, HttpClientConfigBuilder, TokenManager } from "@fetchline/fetchline";
 * import { DPoP } from "@fetchline/fetchline/signing";
 * import assert from "node:assert/strict";
 *
 * const dpop = await DPoP.generate();
 * assert.equal(dpop.privateKey.extractable, false);
 * const tokenManager = new TokenManager([
 *   clientCredentialsStep({ tokenUrl: "http://127.0.0.1:8080/token", clientId: "app", clientSecret: "s3cret", dpop }),
 * ]);
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl("http://127.0.0.1:8081")
 *   .withTokenAuth({ tokenManager, dpop })
 *   .build();
 * ```
 */
export class DPoP {
  /** The JWS algorithm of the proofs: `ES256` or `EdDSA`. */
  readonly alg: "ES256" | "EdDSA";
  /** The public key, as it goes in each proof's header. */
  readonly publicJwk: DPoPPublicJwk;
  /** The private key that signs the proofs. */
  readonly privateKey: CryptoKey;
  readonly #nonces = new Map<string, string>();
  /** The proofs' JOSE header, encoded once: it is the same in every proof. */
  readonly #header: string;
  readonly #params: AlgorithmIdentifier | EcdsaParams;
  /** The last access token's `ath`: a client sends the same token many times. */
  #ath: { readonly token: string; readonly hash: string } | undefined;

  private constructor(alg: "ES256" | "EdDSA", publicJwk: DPoPPublicJwk, privateKey: CryptoKey) {
    this.alg = alg;
    this.publicJwk = Object.freeze(publicJwk);
    this.privateKey = privateKey;
    this.#header = jsonPart({ typ: "dpop+jwt", alg, jwk: this.publicJwk });
    this.#params = alg === "ES256" ? { name: "ECDSA", hash: "SHA-256" } : { name: "Ed25519" };
  }

  /**
   * A new ES256 (ECDSA P-256) key pair whose private key cannot be exported.
   *
   * @example Generate a key
   * ```ts
   * import { DPoP } from "@fetchline/fetchline/signing";
   * import assert from "node:assert/strict";
   *
   * const dpop = await DPoP.generate();
   * assert.equal(dpop.alg, "ES256");
   * assert.equal(dpop.publicJwk.kty, "EC");
   * ```
   */
  static async generate(): Promise<DPoP> {
    const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
      "sign",
      "verify",
    ]) as CryptoKeyPair;
    return await DPoP.fromKeyPair(pair);
  }

  /**
   * A DPoP key from a key pair of one's own: ECDSA P-256 (ES256) or Ed25519
   * (EdDSA), the private key with `sign` usage, the public key extractable.
   * Anything else is a TypeError naming the key.
   *
   * @example Use a stored key pair
   * ```ts
   * import { DPoP } from "@fetchline/fetchline/signing";
   * import assert from "node:assert/strict";
   *
   * const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]) as CryptoKeyPair;
   * const dpop = await DPoP.fromKeyPair(pair);
   * assert.equal(dpop.alg, "EdDSA");
   * ```
   */
  static async fromKeyPair(keyPair: CryptoKeyPair): Promise<DPoP> {
    const { privateKey, publicKey } = (keyPair ?? {}) as Partial<CryptoKeyPair>;
    if (!(privateKey instanceof CryptoKey) || privateKey.type !== "private") {
      throw new TypeError(
        `Invalid keyPair.privateKey: expected a private CryptoKey, got ${describeType(privateKey)}`,
      );
    }
    if (!(publicKey instanceof CryptoKey) || publicKey.type !== "public") {
      throw new TypeError(
        `Invalid keyPair.publicKey: expected a public CryptoKey, got ${describeType(publicKey)}`,
      );
    }
    const { name, namedCurve } = privateKey.algorithm as { name: string; namedCurve?: string };
    const alg = name === "ECDSA" && namedCurve === "P-256"
      ? "ES256"
      : name === "Ed25519"
      ? "EdDSA"
      : undefined;
    if (alg === undefined || !privateKey.usages.includes("sign")) {
      throw new TypeError(
        `Invalid keyPair.privateKey: expected an ECDSA P-256 or Ed25519 key that can sign, got a ${name} key`,
      );
    }
    if (publicKey.algorithm.name !== name) {
      throw new TypeError("Invalid keyPair.publicKey: not of the private key's algorithm");
    }
    const jwk = await crypto.subtle.exportKey("jwk", publicKey);
    const publicJwk: DPoPPublicJwk = alg === "ES256"
      ? { kty: "EC", crv: "P-256", x: jwk.x!, y: jwk.y! }
      : { kty: "OKP", crv: "Ed25519", x: jwk.x! };
    return new DPoP(alg, publicJwk, privateKey);
  }

  /**
   * The JWK SHA-256 thumbprint of the public key (RFC 7638), base64url: the
   * `jkt` a server binds tokens to.
   *
   * @example Read the thumbprint
   * ```ts
   * import { DPoP } from "@fetchline/fetchline/signing";
   * import assert from "node:assert/strict";
   *
   * const dpop = await DPoP.generate();
   * assert.match(await dpop.thumbprint(), /^[\w-]{43}$/);
   * ```
   */
  async thumbprint(): Promise<string> {
    const jwk = this.publicJwk;
    // The required members only, in lexicographic order, no spaces (RFC 7638).
    const canonical = jwk.kty === "EC"
      ? JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })
      : JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
    return base64url(await sha256(canonical));
  }

  /**
   * A new proof JWT for one request: `typ` `dpop+jwt`, the public JWK,
   * `htm`, `htu` (the URL without query and fragment), `iat`, a random
   * `jti`, `ath` when an access token is given, and the nonce (the origin's
   * last one unless given).
   *
   * @example Make a proof by hand
   * ```ts
   * import { DPoP } from "@fetchline/fetchline/signing";
   * import assert from "node:assert/strict";
   *
   * const dpop = await DPoP.generate();
   * const proof = await dpop.proof({ method: "GET", url: "https://api.example/items?page=2" });
   * const payload = JSON.parse(atob(proof.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
   * assert.equal(payload.htu, "https://api.example/items");
   * ```
   */
  async proof(options: DPoPProofOptions): Promise<string> {
    checkKnownKeys("proof options", options, PROOF_KEYS);
    if (typeof options.method !== "string" || options.method === "") {
      throw new TypeError(
        `Invalid method: expected a non-empty string, got ${describeType(options.method)}`,
      );
    }
    const url = URL.parse(String(options.url));
    if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) {
      throw new TypeError("Invalid url: expected an absolute http: or https: URL");
    }
    const { accessToken } = options;
    if (accessToken !== undefined && (typeof accessToken !== "string" || accessToken === "")) {
      throw new TypeError(
        `Invalid accessToken: expected a non-empty string, got ${describeType(accessToken)}`,
      );
    }
    const nonce = options.nonce ?? this.#nonces.get(url.origin);
    return await this.#proof(options.method, url, accessToken, nonce);
  }

  /** A proof of checked arguments. */
  async #proof(
    method: string,
    url: URL,
    accessToken: string | undefined,
    nonce: string | undefined,
  ): Promise<string> {
    const payload: Record<string, unknown> = {
      jti: crypto.randomUUID(),
      htm: method,
      htu: url.origin + url.pathname,
      iat: Math.floor(Date.now() / 1000),
    };
    if (accessToken !== undefined) payload.ath = await this.#athOf(accessToken);
    if (nonce !== undefined) payload.nonce = nonce;
    const input = `${this.#header}.${jsonPart(payload)}`;
    const signature = await crypto.subtle.sign(
      this.#params,
      this.privateKey,
      encoder.encode(input),
    );
    return `${input}.${base64url(new Uint8Array(signature))}`;
  }

  /** `ath`: the base64url SHA-256 of the access token, kept for the last token. */
  async #athOf(token: string): Promise<string> {
    const known = this.#ath;
    if (known !== undefined && known.token === token) return known.hash;
    const hash = base64url(await sha256(token));
    this.#ath = { token, hash };
    return hash;
  }

  /**
   * The link the token auth hook puts on each exchange: a request carrying
   * `Authorization: DPoP <token>` and no `DPoP` header gets a fresh proof
   * for its method and URL as sent; a 401 that asks for a nonce is answered
   * by one resend with it.
   */
  readonly handle: MiddlewareFunction = async (
    request: HttpRequest,
    next,
    _exchange: Exchange,
  ): Promise<HttpResponse> => {
    const authorization = headerValue(request.headers, "authorization");
    const token = authorization === undefined
      ? undefined
      : /^DPoP +([^ ].*)$/i.exec(authorization)?.[1];
    if (token === undefined || headerValue(request.headers, "dpop") !== undefined) {
      return await next(request);
    }
    const url = new URL(request.url);
    const origin = url.origin;
    let used: string | undefined;
    const send = async () => {
      used = this.#nonces.get(origin);
      const proof = await this.#proof(request.method, url, token, used);
      return await next(request.withHeaders({ DPoP: proof }));
    };
    const response = await send();
    const nonce = this.#remember(origin, response);
    const challenged = response.statusCode === 401 &&
      /\bDPoP\b[^]*error\s*=\s*"?use_dpop_nonce/i.test(
        headerValue(response.headers as Record<string, string>, "www-authenticate") ?? "",
      );
    if (!challenged || nonce === undefined || nonce === used || isOneShot(request.body)) {
      return response;
    }
    const again = await send();
    this.#remember(origin, again);
    return again;
  };

  /**
   * Sends a token request with a proof through `send`; a 400 with
   * `use_dpop_nonce` and a new `DPoP-Nonce` is answered by one resend.
   */
  async sendTokenRequest(
    request: HttpRequest,
    send: (request: HttpRequest) => Promise<HttpResponse>,
  ): Promise<HttpResponse> {
    const origin = new URL(request.url).origin;
    let used: string | undefined;
    const attempt = async () => {
      used = this.#nonces.get(origin);
      const proof = await this.proof({ method: request.method, url: request.url, nonce: used });
      return await send(request.withHeaders({ DPoP: proof }));
    };
    const response = await attempt();
    const nonce = this.#remember(origin, response);
    if (response.statusCode !== 400 || nonce === undefined || nonce === used) return response;
    const body = response.jsonOrUndefined<{ error?: unknown }>();
    if (body?.error !== "use_dpop_nonce") return response;
    const again = await attempt();
    this.#remember(origin, again);
    return again;
  }

  /** Keeps the `DPoP-Nonce` of `response` for `origin`, and returns it. */
  #remember(origin: string, response: HttpResponse): string | undefined {
    const nonce = headerValue(response.headers as Record<string, string>, "dpop-nonce")?.trim();
    // A nonce is NQCHAR: printable ASCII without space.
    if (nonce === undefined || !/^[\x21-\x7e]+$/.test(nonce)) return undefined;
    this.#nonces.delete(origin);
    this.#nonces.set(origin, nonce);
    if (this.#nonces.size > MAX_NONCES) this.#nonces.delete(this.#nonces.keys().next().value!);
    return nonce;
  }

  /** The algorithm and public key's type: never the key. */
  toString(): string {
    return `DPoP(${this.alg}, ${this.publicJwk.kty} ${this.publicJwk.crv})`;
  }

  /** The algorithm and public JWK: never the private key. */
  toJSON(): Record<string, unknown> {
    return { alg: this.alg, publicJwk: this.publicJwk };
  }
}

defineRedactedInspect(DPoP, (dpop) => ({ alg: dpop.alg, publicJwk: dpop.publicJwk }));
