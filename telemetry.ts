/**
 * OpenTelemetry for a client's calls: {@linkcode telemetry}, a middleware
 * that makes one INTERNAL span per logical call, one CLIENT span per
 * exchange with the HTTP semantic conventions, and the
 * `http.client.request.duration` and `http.client.active_requests` metrics,
 * through `@opentelemetry/api` (an optional peer dependency of the npm
 * package). Nothing else of the library imports it.
 *
 * @example Trace a client's calls
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { telemetry } from "@fetchline/fetchline/telemetry";
 *
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withMiddleware(telemetry({ propagate: true })).build(),
 * );
 * ```
 *
 * @module
 */

export { telemetry } from "./src/telemetry/telemetry.ts";
export type { TelemetryOptions } from "./src/telemetry/telemetry.ts";
