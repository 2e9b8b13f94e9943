// Routes of the retries area. Each counts its calls under `?key=`, fails the
// first `?times=` of them in its own way, then answers 200 with the count and
// the Idempotency-Key of every call.

import { json, query } from "./http.mjs";

/** Records this call under the request's key; its number and the keys so far. */
function record(req, state) {
  const name = `retries:${query(req, "key")}`;
  const calls = state.get(name) ?? [];
  calls.push(req.headers["idempotency-key"] ?? null);
  state.set(name, calls);
  return calls;
}

/** Whether this call is one of the first `times` that fail. */
function failing(req, calls) {
  return calls.length <= Number(query(req, "times") ?? "0");
}

function succeed(res, calls, headers = {}) {
  json(res, 200, { calls: calls.length, keys: calls }, headers);
}

/** The headers a failing answer sends: `?retry-after=`, and `?h=name:value` for any other. */
function headersOf(req) {
  const url = new URL(req.url, "http://127.0.0.1");
  const headers = Object.fromEntries(
    url.searchParams.getAll("h").map((
      pair,
    ) => [pair.slice(0, pair.indexOf(":")), pair.slice(pair.indexOf(":") + 1)]),
  );
  const retryAfter = url.searchParams.get("retry-after");
  return retryAfter === null ? headers : { ...headers, "retry-after": retryAfter };
}

export const routes = {
  // `?code=503&times=2`: the status (with the headers of `?h=name:value`), then 200 (with them too).
  "/retries/status": (req, res, state) => {
    const calls = record(req, state);
    req.resume();
    if (!failing(req, calls)) return succeed(res, calls, headersOf(req));
    json(res, Number(query(req, "code")), { calls: calls.length }, headersOf(req));
  },
  // `?times=1`: the connection reset before any answer, then 200.
  "/retries/reset": (req, res, state) => {
    const calls = record(req, state);
    if (!failing(req, calls)) return succeed(res, calls);
    req.socket.resetAndDestroy();
  },
  // `?times=1`: the head and 100 of 1000 bytes, then the connection reset; then 200.
  "/retries/reset-body": (req, res, state) => {
    const calls = record(req, state);
    if (!failing(req, calls)) return succeed(res, calls);
    res.writeHead(200, { "content-type": "text/plain", "content-length": "1000" });
    res.write("x".repeat(100), () => setTimeout(() => req.socket.resetAndDestroy(), 20));
  },
  // `?times=1`: no answer at all (the client's timeout ends it), then 200.
  "/retries/hang": (req, res, state) => {
    const calls = record(req, state);
    if (!failing(req, calls)) return succeed(res, calls);
  },
  "/retries/count": (req, res, state) => {
    succeed(res, state.get(`retries:${query(req, "key")}`) ?? []);
  },
};
