/**
 * Traffic control: middleware that makes a client a good citizen of the
 * APIs it calls, each opt-in, plugged in with `withMiddleware()` in the
 * order they should act: {@linkcode QueueFullException},
 * {@linkcode RateLimitedException} and {@linkcode CircuitOpenException} are
 * what they fail a call with. `mod.ts` never loads this module: a client
 * without traffic control never loads its code.
 *
 * For: staying within an API's limits and surviving its bad days. Guide:
 * [docs/traffic-control.md](./docs/traffic-control.md).
 *
 * @example Tell traffic control's failures apart
 * ```ts
 * import { CircuitOpenException, QueueFullException } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * const error: unknown = new QueueFullException("The queue is full: GET http://127.0.0.1/");
 * assert.ok(error instanceof QueueFullException && !(error instanceof CircuitOpenException));
 * ```
 *
 * @module
 */

export {
  CircuitOpenException,
  QueueFullException,
  RateLimitedException,
} from "./src/traffic/errors.ts";
export type { RateLimitedExceptionOptions } from "./src/traffic/errors.ts";
export { concurrency } from "./src/traffic/concurrency.ts";
export type {
  ConcurrencyCounts,
  ConcurrencyLimit,
  ConcurrencyOptions,
  ConcurrencyState,
} from "./src/traffic/concurrency.ts";
export { dedupe } from "./src/traffic/dedupe.ts";
export type { Dedupe, DedupeCounts, DedupeState } from "./src/traffic/dedupe.ts";
export { serverPacing } from "./src/traffic/server_pacing.ts";
export type {
  ServerPacing,
  ServerPacingOptions,
  ServerPacingState,
} from "./src/traffic/server_pacing.ts";
export { circuitBreaker } from "./src/traffic/circuit_breaker.ts";
export type {
  CircuitBreaker,
  CircuitBreakerOptions,
  CircuitBreakerState,
  CircuitState,
} from "./src/traffic/circuit_breaker.ts";
export { rateLimit } from "./src/traffic/rate_limit.ts";
export type { RateLimit, RateLimitOptions, RateLimitState } from "./src/traffic/rate_limit.ts";
export { MemoryRateLimitStore } from "./src/traffic/rate_store.ts";
export type { RateLimitStore, RateLimitTake } from "./src/traffic/rate_store.ts";
export { RedisTrafficStore } from "./src/traffic/redis_traffic_store.ts";
export type {
  IoRedisScriptLike,
  NodeRedisScriptLike,
  RedisTrafficStoreOptions,
} from "./src/traffic/redis_traffic_store.ts";
export type { CircuitBreakerStore, TrafficStore } from "./src/traffic/traffic_store.ts";
export { retryBudget } from "./src/traffic/retry_budget.ts";
export type {
  RetryBudget,
  RetryBudgetOptions,
  RetryBudgetState,
  RetryBudgetStore,
} from "./src/traffic/retry_budget.ts";
export { adaptiveConcurrency } from "./src/traffic/adaptive_concurrency.ts";
export type {
  AdaptiveConcurrencyLimit,
  AdaptiveConcurrencyOptions,
  AdaptiveConcurrencyState,
} from "./src/traffic/adaptive_concurrency.ts";
export { hedge } from "./src/traffic/hedge.ts";
export type { Hedge, HedgeOptions, HedgeState } from "./src/traffic/hedge.ts";
