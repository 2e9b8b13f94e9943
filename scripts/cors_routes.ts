/**
 * The routes under `/cors/` of the fixture scripts/test_browser.ts serves to
 * a page of another origin, for tests/runtimes/cors.mjs: what a browser
 * decides from the server's CORS answers (a route that names no allowed
 * origin, a preflight refused, one allowed, credentials) and a body held
 * after its first chunk. Each request to them is logged;
 * `/cors/seen?path=…` answers that path's log, so a page can tell a request
 * the browser sent from one it never sent.
 *
 * @module
 */

/** What the log keeps of one request: enough to tell a preflight and its questions. */
interface Seen {
  readonly method: string;
  /** A preflight's Access-Control-Request-Headers, else `null`. */
  readonly asked: string | null;
  readonly authorization: string | null;
  readonly cookie: string | null;
}

/**
 * The `/cors/` routes for a page of `origin`: a handler that answers a
 * request to one of them, or `undefined` for any other path. The held body
 * ends when `held` resolves.
 */
export function corsRoutes(
  origin: string,
  held: Promise<void>,
): (request: Request) => Promise<Response | undefined> {
  const log = new Map<string, Seen[]>();
  return async (request) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/cors/")) return undefined;
    const allowed = new Headers({ "access-control-allow-origin": origin, "vary": "origin" });
    if (url.pathname === "/cors/seen") {
      allowed.set("content-type", "application/json");
      const seen = log.get(url.searchParams.get("path") ?? "") ?? [];
      return new Response(JSON.stringify(seen), { headers: allowed });
    }
    const seen = log.get(url.pathname) ?? [];
    log.set(url.pathname, seen);
    seen.push({
      method: request.method,
      asked: request.headers.get("access-control-request-headers"),
      authorization: request.headers.get("authorization"),
      cookie: request.headers.get("cookie"),
    });
    await request.body?.cancel();
    switch (url.pathname) {
      // Answered, but without Access-Control-Allow-Origin: the page may not read it.
      case "/cors/no-allow-origin":
        return Response.json({ read: "not by the page" });
      // The preflight names no allowed origin, so the request itself is never sent.
      case "/cors/refused-preflight":
        return request.method === "OPTIONS"
          ? new Response(null, { status: 204 })
          : Response.json({ sent: "never" }, { headers: allowed });
      case "/cors/preflighted":
      case "/cors/credentials": {
        if (url.pathname === "/cors/credentials") {
          allowed.set("access-control-allow-credentials", "true");
        }
        if (request.method === "OPTIONS") {
          allowed.set("access-control-allow-methods", "GET, POST");
          const asked = request.headers.get("access-control-request-headers");
          if (asked !== null) allowed.set("access-control-allow-headers", asked);
          return new Response(null, { status: 204, headers: allowed });
        }
        return Response.json(seen.at(-1), { headers: allowed });
      }
      // Not answered while the checks run: the client's close ends the call first.
      case "/cors/held":
        await held;
        return Response.json({ answered: "late" }, { headers: allowed });
      case "/cors/slow-body": {
        allowed.set("content-type", "application/json");
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"first": "chunk", '));
          },
          // The rest never comes while the checks run: they give up first.
          async pull(controller) {
            await held;
            controller.close();
          },
        });
        return new Response(body, { headers: allowed });
      }
    }
    return new Response("Not found", { status: 404, headers: allowed });
  };
}
