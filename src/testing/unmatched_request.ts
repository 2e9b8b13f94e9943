import { describeCall, HttpClientException } from "../errors.ts";
import type { MockCall } from "./mock_call.ts";

/** How many routes the message lists before it says how many more there are. */
const LISTED = 20;

/**
 * A request reached a {@linkcode MockTransport} that no route matches. It
 * is the library's exception, so the client passes it to the error hooks
 * and the caller as it is, never retried (the same request would miss
 * again), and no request goes to a network instead. The message names the
 * method, the URL (masked) and the routes; `call` is the request as
 * received.
 *
 * @example Tell a request the test did not expect
 * ```ts
 * import { MockTransport, UnmatchedRequestException } from "@fetchline/fetchline/testing";
 * import assert from "node:assert/strict";
 *
 * const mock = new MockTransport().route("GET", "/users", { json: [] });
 * await assert.rejects(mock.fetch("http://api.test/orders"), (error: unknown) => {
 *   assert.ok(error instanceof UnmatchedRequestException);
 *   assert.equal(error.message, "No mock route matches GET http://api.test/orders: routes GET /users");
 *   assert.equal(error.call.url, "http://api.test/orders");
 *   return true;
 * });
 * ```
 */
export class UnmatchedRequestException extends HttpClientException {
  /** The request no route matched, as the transport received it. */
  readonly call: MockCall;

  /**
   * Creates an exception.
   *
   * @param call The request no route matched.
   * @param routes The routes' labels (`GET /users`), in order.
   */
  constructor(call: MockCall, routes: readonly string[]) {
    const listed = routes.length === 0
      ? "no routes"
      : `routes ${routes.slice(0, LISTED).join("; ")}` +
        (routes.length > LISTED ? ` and ${routes.length - LISTED} more` : "");
    super(`No mock route matches ${describeCall(call)}: ${listed}`);
    this.call = call;
  }
}
