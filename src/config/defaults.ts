import type { HttpClientConfig } from "./http_client_config.ts";
import { DEFAULT_RETRY } from "./retry_policy.ts";

/**
 * The configuration of a client given none, and the start of every builder:
 * timeout 30 s, read timeout 30 s, no total timeout, 2 retries, 20 redirects, buffered bodies up to 256 MiB, no
 * base URL, headers or hooks.
 */
export const DEFAULT_CONFIG: HttpClientConfig = Object.freeze({
  timeout: 30,
  readTimeout: 30,
  totalTimeout: null,
  headers: Object.freeze({}),
  maxRedirects: 20,
  maxResponseBytes: 256 * 1024 * 1024,
  requestHooks: Object.freeze([]),
  responseHooks: Object.freeze([]),
  errorHooks: Object.freeze([]),
  middleware: Object.freeze([]),
  retry: DEFAULT_RETRY,
});
