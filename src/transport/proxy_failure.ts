// The proxy's failure, apart from the routing rules (proxy_route.ts) that
// make it, so the code that turns it into the library's exception
// (call_errors.ts) does not bring those rules into a build without proxies.

/**
 * The error a transport throws when the proxy, not the target, failed the
 * exchange: unreachable, or refusing the tunnel or the credentials
 * (`transient`: a retry may succeed), or a route the runtime cannot take
 * (not transient). The message names the proxy, masked; `cause` is the
 * runtime's error.
 */
export class ProxyFailure extends Error {
  /** Takes the message, the runtime's error, and whether a retry may succeed. */
  constructor(message: string, cause: unknown, readonly transient = true) {
    super(message, { cause });
    this.name = "ProxyFailure";
  }
}
