import { HttpClientConfigBuilder } from "../config/client_config.ts";
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
  const builder = new HttpClientConfigBuilder();
  if (baseUrl !== undefined) builder.withBaseUrl(baseUrl);
  return new HttpClient(builder.build());
}
