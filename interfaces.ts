/**
 * The contracts a user implements to extend the client: for now the
 * transport, {@linkcode FetchLike}; the hook interfaces join it with the
 * request lifecycle.
 *
 * @example Hand the client an in-memory transport
 * ```ts
 * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import type { FetchLike } from "@fetchline/fetchline/interfaces";
 *
 * const inMemory: FetchLike = () => Promise.resolve(Response.json({ ok: true }));
 * const config = new HttpClientConfigBuilder().withFetch(inMemory).build();
 * ```
 *
 * @module
 */

export type { FetchLike } from "./src/config/client_config.ts";
