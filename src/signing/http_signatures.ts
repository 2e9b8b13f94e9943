// HTTP Message Signatures (RFC 9421): httpSignatures(), a middleware that
// signs each exchange as it is sent, and verifySignature() /
// verifyRequestSignature(), which check a signed response or an incoming
// request. WebCrypto only.

import type { MiddlewareFunction } from "../hooks/hook_interfaces.ts";
import { appendParams } from "../http/url.ts";
import type { HttpRequest } from "../models/request.ts";
import { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { settleBody } from "./body.ts";
import {
  type BareItem,
  type InnerList,
  isInnerList,
  type Item,
  parseDictionary,
  parseParamsText,
  serializeMember,
  serializeString,
  toBase64,
} from "./structured_fields.ts";

/** The algorithms of {@linkcode httpSignatures}, by their RFC 9421 names. */
export type SignatureAlgorithm = "ed25519" | "ecdsa-p256-sha256" | "rsa-pss-sha512" | "hmac-sha256";

/** How each algorithm is asked of WebCrypto, and the key it needs. */
const ALGORITHMS: Record<
  SignatureAlgorithm,
  { params: AlgorithmIdentifier | EcdsaParams | RsaPssParams; key: string; hash?: string }
> = {
  "ed25519": { params: { name: "Ed25519" }, key: "Ed25519" },
  "ecdsa-p256-sha256": { params: { name: "ECDSA", hash: "SHA-256" }, key: "ECDSA" },
  "rsa-pss-sha512": {
    params: { name: "RSA-PSS", saltLength: 64 },
    key: "RSA-PSS",
    hash: "SHA-512",
  },
  "hmac-sha256": { params: { name: "HMAC" }, key: "HMAC", hash: "SHA-256" },
};

/** Options of {@linkcode httpSignatures}. */
export interface HttpSignaturesOptions {
  /** The `keyid` parameter: how the verifier finds the key. */
  keyId: string;
  /** The signing key: a WebCrypto private key (or the HMAC secret key) with `sign` usage. */
  key: CryptoKey;
  /** The algorithm, matching the key. */
  algorithm: SignatureAlgorithm;
  /**
   * The covered components, in order: derived ones (`@method`,
   * `@target-uri`, `@authority`, `@scheme`, `@request-target`, `@path`,
   * `@query`, `@query-param;name="…"`) and header names. A function picks
   * them per request (a GET has no `content-digest` to sign). Default
   * `["@method", "@target-uri"]`.
   */
  components?: readonly string[] | ((request: HttpRequest) => readonly string[]) | undefined;
  /** Adds `created`, the time of signing (default true). */
  created?: boolean | undefined;
  /** Adds `expires`, this long after signing: seconds, or text such as `"30s"`, `"5m"`, `"1h"`. */
  expiresIn?: number | string | undefined;
  /** The signature's label in the dictionaries. Default `sig1`. */
  label?: string | undefined;
  /** Adds the `alg` parameter (RFC 9421 leaves it optional). Default false. */
  includeAlg?: boolean | undefined;
  /** The `tag` parameter: the application profile the signature is for. */
  tag?: string | undefined;
  /** A `nonce` per signature: true for a random one, or a function returning one. */
  nonce?: boolean | (() => string) | undefined;
  /** The clock, in milliseconds since the epoch (tests, replays of fixed vectors). Default `Date.now`. */
  now?: (() => number) | undefined;
}

const OPTION_KEYS = /* @__PURE__ */ keysOf<HttpSignaturesOptions>({
  keyId: true,
  key: true,
  algorithm: true,
  components: true,
  created: true,
  expiresIn: true,
  label: true,
  includeAlg: true,
  tag: true,
  nonce: true,
  now: true,
});

/** The headers the signer writes: credentials, masked wherever shown and dropped off-origin. */
const SIGNATURE_HEADERS: readonly string[] = Object.freeze(["Signature", "Signature-Input"]);

/**
 * A middleware that signs each exchange with HTTP Message Signatures
 * (RFC 9421): `Signature-Input` and `Signature` over the named components,
 * as the request is sent (after the cookie jar; on every redirect hop,
 * retry and resend, so `created` and the target are those of that
 * exchange). The body's Content-Type is fixed first, as the transport would
 * set it, so `content-type` can be signed for a JSON or form body. A
 * component the request lacks is a TypeError naming it. A signature of
 * another signer is kept: the dictionaries gain a member. The two headers
 * are credentials: masked in every view, log, HAR and error, never stored
 * by a cache, dropped by a hop to another origin.
 *
 * @example Sign requests with Ed25519
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { httpSignatures } from "@fetchline/fetchline/signing";
 * import assert from "node:assert/strict";
 *
 * const { privateKey } = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]) as CryptoKeyPair;
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   (request) => new Response(request.headers.get("signature-input")),
 * );
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *   .withMiddleware(httpSignatures({ keyId: "k1", key: privateKey, algorithm: "ed25519", expiresIn: "5m" }))
 *   .build();
 * await using client = new HttpClient(config);
 * const response = await client.get("/items");
 * assert.match(response.text, /^sig1=\("@method" "@target-uri"\);created=\d+;expires=\d+;keyid="k1"$/);
 * ```
 */
export function httpSignatures(
  options: HttpSignaturesOptions,
): MiddlewareFunction & { readonly credentialHeaders: readonly string[] } {
  checkKnownKeys("httpSignatures options", options, OPTION_KEYS);
  const signer = checkSigner(options);
  // What every signature of this signer shares is serialised once: the
  // covered components (when fixed), `keyid`, `alg` and `tag`.
  const fixed = typeof signer.components === "function" ? undefined : coverage(signer.components);
  let tail = "";
  if (signer.includeAlg) tail += `;alg=${serializeString(signer.algorithm)}`;
  tail += `;keyid=${serializeString(signer.keyId)}`;
  if (signer.tag !== undefined) tail += `;tag=${serializeString(signer.tag)}`;
  const params = ALGORITHMS[signer.algorithm].params;
  const link: MiddlewareFunction = async (request, next) => {
    const covered = fixed ??
      coverage(parseComponents((signer.components as (request: HttpRequest) => string[])(request)));
    // Only a signed Content-Type needs the body's settled: a digest is a header of its own.
    const sent = covered.contentType
      ? (await settleBody(request, "httpSignatures")).request
      : request;
    const message = messageOf(sent);
    const nowSeconds = Math.floor(signer.now() / 1000);
    let signatureParams = covered.list;
    if (signer.created) signatureParams += `;created=${nowSeconds}`;
    if (signer.expiresIn !== undefined) {
      signatureParams += `;expires=${nowSeconds + signer.expiresIn}`;
    }
    if (signer.nonce !== undefined) signatureParams += `;nonce=${serializeString(signer.nonce())}`;
    signatureParams += tail;
    let base = "";
    for (let i = 0; i < covered.items.length; i++) {
      const value = componentValue(message, covered.items[i]!);
      if (value === undefined) {
        throw new TypeError(
          `Cannot sign the request: it has no ${covered.identifiers[i]} to cover`,
        );
      }
      base += `${covered.identifiers[i]}: ${value}\n`;
    }
    base += `"@signature-params": ${signatureParams}`;
    const signature = new Uint8Array(
      await crypto.subtle.sign(params, signer.key, encoder.encode(base) as Uint8Array<ArrayBuffer>),
    );
    const inputText = `${signer.label}=${signatureParams}`;
    const signatureText = `${signer.label}=:${toBase64(signature)}:`;
    return next(sent.withHeaders({
      "Signature-Input": joinMember(sent, "signature-input", signer.label, inputText),
      Signature: joinMember(sent, "signature", signer.label, signatureText),
    }));
  };
  return Object.assign(link, { credentialHeaders: SIGNATURE_HEADERS });
}

/** A header's dictionary with the member `text` (under `label`) added, or replacing its own. */
function joinMember(request: HttpRequest, name: string, label: string, text: string): string {
  const existing = headerOf(request.headers, name);
  if (existing === undefined || existing.trim() === "") return text;
  const members = parseDictionary(existing);
  if (members === undefined || !members.has(label)) return `${existing}, ${text}`;
  members.delete(label);
  const kept = [...members].map(([key, member]) => `${key}=${serializeMember(member)}`);
  return [...kept, text].join(", ");
}

/** Covered components as a signer uses them: each one's identifier, and the inner list's text. */
interface Coverage {
  readonly items: readonly Item[];
  /** Each component's serialisation, as its line of the signature base starts. */
  readonly identifiers: readonly string[];
  /** The inner list of the components, without parameters: `("@method" "@target-uri")`. */
  readonly list: string;
  /** True when `content-type` is covered (the body's type must be fixed first). */
  readonly contentType: boolean;
}

/** The coverage of `items`; a component named twice is a TypeError naming it. */
function coverage(items: readonly Item[]): Coverage {
  const identifiers = items.map(serializeMember);
  const twice = identifiers.find((identifier, i) => identifiers.indexOf(identifier) !== i);
  if (twice !== undefined) {
    throw new TypeError(`Invalid components: ${twice} is named twice`);
  }
  return {
    items,
    identifiers,
    list: `(${identifiers.join(" ")})`,
    contentType: items.some((item) => item.value === "content-type"),
  };
}

interface Signer {
  readonly keyId: string;
  readonly key: CryptoKey;
  readonly algorithm: SignatureAlgorithm;
  readonly components: readonly Item[] | ((request: HttpRequest) => readonly string[]);
  readonly created: boolean;
  readonly expiresIn: number | undefined;
  readonly label: string;
  readonly includeAlg: boolean;
  readonly tag: string | undefined;
  readonly nonce: (() => string) | undefined;
  readonly now: () => number;
}

function checkSigner(options: HttpSignaturesOptions): Signer {
  if (typeof options.keyId !== "string" || options.keyId === "") {
    throw new TypeError(
      `Invalid keyId: expected a non-empty string, got ${describeType(options.keyId)}`,
    );
  }
  serializeString(options.keyId, "keyId");
  const algorithm = options.algorithm;
  if (!Object.hasOwn(ALGORITHMS, algorithm)) {
    throw new TypeError(
      `Invalid algorithm: expected one of ${Object.keys(ALGORITHMS).join(", ")}, got ${
        describeType(algorithm)
      }`,
    );
  }
  checkKey("key", options.key, algorithm, "sign");
  const label = options.label ?? "sig1";
  if (typeof label !== "string" || !/^[a-z*][a-z0-9_\-.*]*$/.test(label)) {
    throw new TypeError(
      `Invalid label: expected a structured field key (lower-case letters, digits, _ - . *), got ${
        describeType(label)
      }`,
    );
  }
  const components = options.components ?? ["@method", "@target-uri"];
  if (typeof components !== "function" && !Array.isArray(components)) {
    throw new TypeError(
      `Invalid components: expected an array of names or a function, got ${
        describeType(components)
      }`,
    );
  }
  if (options.tag !== undefined) serializeString(options.tag, "tag");
  const nonce = options.nonce;
  if (nonce !== undefined && typeof nonce !== "boolean" && typeof nonce !== "function") {
    throw new TypeError(
      `Invalid nonce: expected a boolean or a function, got ${describeType(nonce)}`,
    );
  }
  if (options.now !== undefined && typeof options.now !== "function") {
    throw new TypeError(`Invalid now: expected a function, got ${describeType(options.now)}`);
  }
  return {
    keyId: options.keyId,
    key: options.key,
    algorithm,
    components: typeof components === "function" ? components : parseComponents(components),
    created: options.created ?? true,
    expiresIn: options.expiresIn === undefined ? undefined : parseDuration(options.expiresIn),
    label,
    includeAlg: options.includeAlg === true,
    tag: options.tag,
    nonce: nonce === true
      ? () => crypto.randomUUID()
      : typeof nonce === "function"
      ? () => checkedNonce(nonce())
      : undefined,
    now: options.now ?? Date.now,
  };
}

function checkedNonce(nonce: unknown): string {
  if (typeof nonce !== "string" || nonce === "") {
    throw new TypeError(`Invalid nonce: the function returned ${describeType(nonce)}`);
  }
  serializeString(nonce, "nonce");
  return nonce;
}

/** A key WebCrypto can use for `algorithm` and `usage`; a TypeError naming `field` otherwise. */
function checkKey(
  field: string,
  key: unknown,
  algorithm: SignatureAlgorithm,
  usage: KeyUsage,
): void {
  if (!(key instanceof CryptoKey)) {
    throw new TypeError(`Invalid ${field}: expected a CryptoKey, got ${describeType(key)}`);
  }
  const wanted = ALGORITHMS[algorithm];
  const { name, namedCurve, hash } = key.algorithm as {
    name: string;
    namedCurve?: string;
    hash?: { name: string };
  };
  const fits = name === wanted.key &&
    (algorithm !== "ecdsa-p256-sha256" || namedCurve === "P-256") &&
    (wanted.hash === undefined || hash?.name === wanted.hash);
  if (!fits || !key.usages.includes(usage)) {
    throw new TypeError(
      `Invalid ${field}: ${algorithm} needs a ${wanted.key}${
        wanted.hash === undefined ? "" : ` ${wanted.hash}`
      }${
        algorithm === "ecdsa-p256-sha256" ? " P-256" : ""
      } key that can ${usage}, got a ${name} key` +
        ` with usages [${key.usages.join(", ")}]`,
    );
  }
}

/** Seconds of a duration: a number, or text such as `90`, `30s`, `5m`, `1h`. */
function parseDuration(value: number | string): number {
  const found = typeof value === "string" ? /^(\d{1,9})\s*([smh]?)$/.exec(value.trim()) : null;
  const seconds = typeof value === "number"
    ? value
    : found === null
    ? NaN
    : Number(found[1]) * ({ "": 1, s: 1, m: 60, h: 3600 }[found[2] as "" | "s" | "m" | "h"]);
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw new RangeError(
      `Invalid expiresIn: expected a positive whole number of seconds or text such as "5m", got ${
        JSON.stringify(value)
      }`,
    );
  }
  return seconds;
}

/** Component names as items: `@query-param;name="Pet"` → the string with its parameters. */
function parseComponents(names: readonly string[]): Item[] {
  if (!Array.isArray(names) || names.length === 0) {
    throw new TypeError("Invalid components: expected at least one component name");
  }
  return names.map((text) => {
    if (typeof text !== "string" || text === "") {
      throw new TypeError(`Invalid components: expected names, got ${describeType(text)}`);
    }
    const semicolon = text.indexOf(";");
    const name = (semicolon === -1 ? text : text.slice(0, semicolon)).trim().toLowerCase();
    const params = semicolon === -1 ? new Map() : parseParamsText(text.slice(semicolon));
    if (params === undefined || !/^@?[a-z0-9!#$%&'*+\-.^_`|~]+$/.test(name)) {
      throw new TypeError(
        `Invalid components: ${JSON.stringify(text)} is not a component identifier`,
      );
    }
    for (const key of params.keys()) {
      if (key !== "name" && key !== "req") {
        throw new TypeError(
          `Invalid components: the parameter ${JSON.stringify(key)} of ${JSON.stringify(text)} ` +
            "is not supported (name and req are)",
        );
      }
    }
    return { value: name, params };
  });
}

// The signature base (RFC 9421): one line per covered component, then the
// signature parameters.

/** A message as the signature base reads it. */
interface Message {
  readonly method?: string;
  readonly url?: URL;
  readonly status?: number;
  readonly header: (name: string) => string | undefined;
}

const encoder = new TextEncoder();

/** The headers of a record, by lower-case name. */
function headerOf(headers: Readonly<Record<string, string>> | undefined, name: string) {
  if (headers === undefined) return undefined;
  for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

function messageOf(request: HttpRequest): Message {
  const url = new URL(appendParams(request.url, request.params));
  url.hash = "";
  return { method: request.method, url, header: (name) => headerOf(request.headers, name) };
}

/**
 * The signature base of `message` (and of `request`, for a response's
 * components marked `req`) over `input`; `missing` is told a component the
 * message lacks and its answer ends the base (`undefined`).
 */
function signatureBase(
  message: Message,
  request: Message | undefined,
  input: InnerList,
  missing: (name: string) => void,
): string | undefined {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const item of input.items) {
    if (typeof item.value !== "string") return void missing(String(item.value));
    const identifier = serializeMember(item);
    if (seen.has(identifier)) return void missing(`${identifier} twice`);
    seen.add(identifier);
    const source = item.params.get("req") === true ? request : message;
    const value = source === undefined ? undefined : componentValue(source, item);
    if (value === undefined) return void missing(identifier);
    lines.push(`${identifier}: ${value}`);
  }
  lines.push(`"@signature-params": ${serializeMember(input)}`);
  return lines.join("\n");
}

/** The value of one component of `message`, or `undefined` when it has none. */
function componentValue(message: Message, item: Item): string | undefined {
  const name = item.value as string;
  const url = message.url;
  if (!name.startsWith("@")) {
    const value = message.header(name);
    return value === undefined ? undefined : value.trim().replace(/\s*\r?\n\s*/g, " ");
  }
  if (name === "@status") return message.status === undefined ? undefined : String(message.status);
  if (url === undefined) return undefined;
  switch (name) {
    case "@method":
      return message.method;
    case "@target-uri":
      return url.href;
    case "@authority":
      return url.host.toLowerCase();
    case "@scheme":
      return url.protocol.slice(0, -1).toLowerCase();
    case "@request-target":
      return url.pathname + url.search;
    case "@path":
      return url.pathname || "/";
    case "@query":
      return url.search === "" ? "?" : url.search;
    case "@query-param": {
      const wanted = item.params.get("name");
      if (typeof wanted !== "string") return undefined;
      const values = new URLSearchParams(url.search).getAll(wanted);
      // One value only: a repeated parameter cannot be covered by one line unambiguously.
      if (values.length !== 1) return undefined;
      return encodeURIComponent(values[0]!).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      );
    }
    default:
      return undefined;
  }
}

// Verification.

/** Options of {@linkcode verifySignature} and {@linkcode verifyRequestSignature}. */
export interface VerifySignatureOptions {
  /** The verification keys by `keyid`: a Map or a record of WebCrypto public (or HMAC) keys. */
  keys: ReadonlyMap<string, CryptoKey> | Readonly<Record<string, CryptoKey>>;
  /** The label of the signature to check; default: every signature must verify (at least one). */
  label?: string | undefined;
  /** Components the signature must cover (`["@status", "content-digest"]`); default none. */
  required?: readonly string[] | undefined;
  /** The clock, in milliseconds since the epoch, for `expires`. Default `Date.now`. */
  now?: (() => number) | undefined;
}

const VERIFY_KEYS = /* @__PURE__ */ keysOf<VerifySignatureOptions>({
  keys: true,
  label: true,
  required: true,
  now: true,
});

/**
 * Verifies the HTTP Message Signatures (RFC 9421) of a response: true when
 * it carries a signature (the one `label` names, else every one) whose key
 * `keys` holds under its `keyid`, whose `expires` has not passed, which
 * covers the `required` components, and which verifies over the response
 * (and its request's components marked `req`). False otherwise: never an
 * error for a bad, missing or unreadable signature. Bad arguments are a
 * TypeError. The algorithm comes from the key (an `alg` parameter must
 * agree with it).
 *
 * @example Verify a signed response
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import { verifySignature } from "@fetchline/fetchline/signing";
 * import assert from "node:assert/strict";
 *
 * const secret = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("ok"));
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * const response = await client.get("/");
 * assert.equal(await verifySignature(response, { keys: { k1: secret } }), false); // not signed
 * ```
 */
export async function verifySignature(
  response: HttpResponse,
  options: VerifySignatureOptions,
): Promise<boolean> {
  if (!(response instanceof HttpResponse)) {
    throw new TypeError(
      `Invalid response: expected an HttpResponse, got ${describeType(response)}`,
    );
  }
  const checked = checkVerify(options);
  const headers = response.headers as Readonly<Record<string, string>>;
  const message: Message = {
    status: response.statusCode,
    header: (name) => headerOf(headers, name),
  };
  const request = response.request === undefined ? undefined : messageOf(response.request);
  return await verifyMessage(message, request, checked);
}

/**
 * Verifies the HTTP Message Signatures (RFC 9421) of an incoming `Request`
 * (a webhook a server receives), as {@linkcode verifySignature} does a
 * response's: true or false, a TypeError only for bad arguments. To trust
 * the body too, require `content-digest` and check the digest against the
 * bytes read.
 *
 * @example Verify a signed webhook
 * ```ts
 * import { verifyRequestSignature } from "@fetchline/fetchline/signing";
 * import assert from "node:assert/strict";
 *
 * const secret = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
 * const incoming = new Request("http://127.0.0.1/hook", { method: "POST", body: "{}" });
 * assert.equal(await verifyRequestSignature(incoming, { keys: { k1: secret } }), false); // not signed
 * ```
 */
export async function verifyRequestSignature(
  request: Request,
  options: VerifySignatureOptions,
): Promise<boolean> {
  if (!(request instanceof Request)) {
    throw new TypeError(`Invalid request: expected a Request, got ${describeType(request)}`);
  }
  const checked = checkVerify(options);
  const url = new URL(request.url);
  url.hash = "";
  const message: Message = {
    method: request.method,
    url,
    header: (name) => request.headers.get(name) ?? undefined,
  };
  return await verifyMessage(message, undefined, checked);
}

interface Verify {
  readonly keys: (keyId: string) => CryptoKey | undefined;
  readonly label: string | undefined;
  readonly required: readonly string[];
  readonly now: () => number;
}

function checkVerify(options: VerifySignatureOptions): Verify {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      `Invalid options: expected an object with keys, got ${describeType(options)}`,
    );
  }
  checkKnownKeys("verifySignature options", options, VERIFY_KEYS);
  const { keys } = options;
  if (typeof keys !== "object" || keys === null) {
    throw new TypeError(
      `Invalid keys: expected a Map or a record of CryptoKeys, got ${describeType(keys)}`,
    );
  }
  const entries = keys instanceof Map ? [...keys] : Object.entries(keys);
  for (const [keyId, key] of entries) {
    if (!(key instanceof CryptoKey)) {
      throw new TypeError(
        `Invalid keys: ${JSON.stringify(keyId)} is ${describeType(key)}, not a CryptoKey`,
      );
    }
  }
  const map = new Map<string, CryptoKey>(entries as [string, CryptoKey][]);
  if (options.label !== undefined && typeof options.label !== "string") {
    throw new TypeError(`Invalid label: expected a string, got ${describeType(options.label)}`);
  }
  const required = options.required ?? [];
  if (!Array.isArray(required) || required.some((name) => typeof name !== "string")) {
    throw new TypeError(`Invalid required: expected an array of component names`);
  }
  if (options.now !== undefined && typeof options.now !== "function") {
    throw new TypeError(`Invalid now: expected a function, got ${describeType(options.now)}`);
  }
  return {
    keys: (keyId) => map.get(keyId),
    label: options.label,
    required: required.length === 0 ? [] : parseComponents(required).map(serializeMember),
    now: options.now ?? Date.now,
  };
}

async function verifyMessage(
  message: Message,
  request: Message | undefined,
  verify: Verify,
): Promise<boolean> {
  const inputs = parseDictionary(message.header("signature-input") ?? "");
  const signatures = parseDictionary(message.header("signature") ?? "");
  if (inputs === undefined || signatures === undefined || inputs.size === 0) return false;
  const labels = verify.label === undefined ? [...inputs.keys()] : [verify.label];
  for (const label of labels) {
    const input = inputs.get(label);
    const signature = signatures.get(label);
    if (input === undefined || !isInnerList(input)) return false;
    if (signature === undefined || isInnerList(signature)) return false;
    if (!(signature.value instanceof Uint8Array)) return false;
    if (!(await verifyOne(message, request, input, signature.value, verify))) return false;
  }
  return true;
}

async function verifyOne(
  message: Message,
  request: Message | undefined,
  input: InnerList,
  signature: Uint8Array,
  verify: Verify,
): Promise<boolean> {
  const keyId = input.params.get("keyid");
  if (typeof keyId !== "string") return false;
  const key = verify.keys(keyId);
  if (key === undefined) return false;
  const algorithm = algorithmOf(key);
  const alg: BareItem | undefined = input.params.get("alg");
  if (algorithm === undefined || (alg !== undefined && alg !== algorithm)) return false;
  const expires = input.params.get("expires");
  if (expires !== undefined && (typeof expires !== "number" || expires * 1000 < verify.now())) {
    return false;
  }
  const covered = new Set(input.items.map(serializeMember));
  if (verify.required.some((identifier) => !covered.has(identifier))) return false;
  const base = signatureBase(message, request, input, () => {});
  if (base === undefined || !key.usages.includes("verify")) return false;
  try {
    return await crypto.subtle.verify(
      ALGORITHMS[algorithm].params,
      key,
      signature as Uint8Array<ArrayBuffer>,
      encoder.encode(base) as Uint8Array<ArrayBuffer>,
    );
  } catch {
    return false;
  }
}

/** The RFC 9421 algorithm a key is for, if one of ours. */
function algorithmOf(key: CryptoKey): SignatureAlgorithm | undefined {
  const { name, namedCurve, hash } = key.algorithm as {
    name: string;
    namedCurve?: string;
    hash?: { name: string };
  };
  if (name === "Ed25519") return "ed25519";
  if (name === "ECDSA" && namedCurve === "P-256") return "ecdsa-p256-sha256";
  if (name === "RSA-PSS" && hash?.name === "SHA-512") return "rsa-pss-sha512";
  if (name === "HMAC" && hash?.name === "SHA-256") return "hmac-sha256";
  return undefined;
}
