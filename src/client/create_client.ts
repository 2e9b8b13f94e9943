import { checkBaseUrl, DEFAULT_CONFIG, frozenConfig } from "../config/config.ts";
import { HttpClient } from "./http_client.ts";

/**
 * Creates a client with the default configuration and an optional base URL.
 *
 * @param baseUrl The base URL relative request URLs are resolved against.
 * @returns The client.
 *
 * @example Create a client and close it with `using`
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * using client = createClient("http://127.0.0.1:8080/api/");
 * assert.equal(client.config.baseUrl, "http://127.0.0.1:8080/api/");
 * assert.equal(client.config.timeout, 30);
 * ```
 */
export function createClient(baseUrl?: string | URL): HttpClient {
  // As `new HttpClientConfigBuilder().withBaseUrl(baseUrl).build()` does, without the
  // builder: a bundle that only creates clients leaves the builder's methods out.
  const config = baseUrl === undefined
    ? DEFAULT_CONFIG
    : { ...DEFAULT_CONFIG, baseUrl: checkBaseUrl(baseUrl) };
  return new HttpClient(frozenConfig(config));
}
