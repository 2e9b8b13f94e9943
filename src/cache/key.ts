// Which stored responses a request may receive: the key of a request (its
// method, its URL with no credential in it, a hash of its credentials, a
// hash of a QUERY's body) and the request as the policy sees it (the
// credentials' values replaced). A store never holds a credential.

import type { HttpRequest } from "../models/request.ts";
import { appendParams } from "../http/url.ts";
import { comparableBody } from "../http/raw_body.ts";
import { isCredentialField, isCredentialHeader } from "../masking/credentials.ts";
import type { PolicyMessage } from "./policy.ts";

/** What stands in a key and in a stored request for a credential's value. */
const HIDDEN = "~";

/** The longest key handed to a store; a longer one is hashed. */
const MAX_KEY = 512;

/** A request as the cache keys and judges it. */
export interface CacheRequest {
  /** The store's key; `undefined` when the request's body cannot be keyed (a stream, a form with files). */
  readonly key: string | undefined;
  /** The key of a GET of the same URL by the same caller (what an unsafe method invalidates). */
  readonly getKey: string;
  /** The request as the policy reads it: no credential's value in it. */
  readonly message: PolicyMessage;
  /**
   * True when the request carries no credential in its URL, params or
   * headers and no Basic `auth` (nor a client certificate): what a server
   * could quote back of its URL and headers is nothing to mask.
   */
  readonly credentialFree: boolean;
}

/** What the cache knows of the client that sends a request (a middleware link's exchange facts). */
export interface Caller {
  /** Lower-case names of the credential headers the client's hooks declare. */
  readonly credentialHeaders: ReadonlySet<string> | undefined;
  /** The client certificate (PEM) the client shows a server that asks. */
  readonly clientCertificate: string | undefined;
}

/**
 * The key and policy view of `request` (sent to its URL with its params):
 * the credential headers are the fixed ones (`Authorization`, `Cookie`,
 * `Proxy-Authorization`, `X-API-Key`), those the client's hooks declare,
 * and any whose name looks like a credential's (`X-Token`,
 * `X-Session-Id`); with the user-info of the URL, Basic `auth`, the values
 * of credential-like query parameters and the client's certificate, they
 * make the identity, hashed (SHA-256) into the key. With `getOnly`, only
 * the key of a GET of the URL is made (what an unsafe method invalidates).
 */
export function cacheRequest(
  request: HttpRequest,
  caller: Caller | undefined,
  getOnly = false,
): CacheRequest | Promise<CacheRequest> {
  const declared = caller?.credentialHeaders;
  const url = new URL(appendParams(request.url, request.params));
  // A fragment is never sent: it is neither keyed nor stored. Set only when
  // there is one: the setter parses the URL again, even to clear an empty
  // hash (op_url_reparse was 13% of the cache's own CPU on a 304 in a
  // --cpu-prof of 4,000 revalidations, Deno 2.9.6).
  if (url.hash !== "") url.hash = "";
  const secrets: string[] = [];
  if (url.username !== "" || url.password !== "") {
    secrets.push(`userinfo:${url.username}:${url.password}`);
    url.username = url.password = "";
  }
  if (request.auth !== undefined) secrets.push(`auth:${request.auth[0]}:${request.auth[1]}`);
  const certificate = caller?.clientCertificate;
  if (certificate !== undefined) secrets.push(`certificate:${certificate}`);
  if (url.search !== "") {
    // Field by field as sent: a value's bytes are kept (decoded, two values
    // that are not UTF-8 would read the same), a credential's hidden.
    const fields = url.search.slice(1).split("&");
    let hidden = false;
    const kept = fields.map((field) => {
      const equals = field.indexOf("=");
      const name = equals === -1 ? field : field.slice(0, equals);
      if (!isCredentialField(name, declared)) return field;
      hidden = true;
      secrets.push(`query:${field}`);
      return `${name}=${HIDDEN}`;
    });
    if (hidden) url.search = kept.join("&");
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const lower = name.toLowerCase();
    if (isCredentialHeader(lower, declared)) {
      secrets.push(`header:${lower}:${value}`);
      headers[lower] = HIDDEN;
    } else headers[lower] = value;
  }
  headers.host = url.host;
  const where = url.href;
  // The policy reads every request as a GET: it stores no response to a
  // QUERY, whose body the key holds.
  const message = { url: where, method: "GET", headers };
  // A GET with nothing to hash is keyed at once (most are): no await.
  const plain = `GET ${where}`;
  if (secrets.length === 0 && (request.method === "GET" || getOnly) && plain.length <= MAX_KEY) {
    return { key: plain, getKey: plain, message, credentialFree: true };
  }
  return hashed(request, where, secrets, message, getOnly);
}

/** The keys of `request` at `where` whose credentials, body or length need a hash. */
async function hashed(
  request: HttpRequest,
  where: string,
  secrets: string[],
  message: PolicyMessage,
  getOnly: boolean,
): Promise<CacheRequest> {
  const identity = secrets.length === 0 ? "" : ` as ${await sha256(secrets.sort().join("\n"))}`;
  const getKey = await bounded(`GET ${where}${identity}`);
  let key: string | undefined = getKey;
  if (request.method !== "GET" && !getOnly) {
    const body = comparableBody(request);
    // The body's type and coding say what its bytes mean (RFC 10008: the
    // key holds the content and its metadata).
    const { "content-type": type = "", "content-encoding": coding = "" } = message.headers;
    key = body === undefined ? undefined : await bounded(
      `${request.method} ${where}${identity} body ${await sha256(body)} ${
        JSON.stringify([type, coding])
      }`,
    );
  }
  return { key, getKey, message, credentialFree: secrets.length === 0 };
}

/** The key of a GET of `location` (resolved against `base`) by the caller of `like`. */
export async function keyOfLocation(
  location: string,
  base: string,
  like: HttpRequest,
  caller: Caller | undefined,
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(location, base);
  } catch {
    return undefined;
  }
  if (url.origin !== new URL(base).origin) return undefined;
  return (await cacheRequest(like.with({ url: url.href, params: undefined }), caller, true)).getKey;
}

/** `key`, or its hash when it is longer than a store takes. */
async function bounded(key: string): Promise<string> {
  return key.length <= MAX_KEY ? key : `sha256 ${await sha256(key)}`;
}

/** The SHA-256 of `data` (text as UTF-8), in hex. */
async function sha256(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
