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

function succeed(res, calls) {
  json(res, 200, { calls: calls.length, keys: calls });
}

export const routes = {
  // `?code=503&times=2`: the status, then 200.
  "/retries/status": (req, res, state) => {
    const calls = record(req, state);
    req.resume();
    if (!failing(req, calls)) return succeed(res, calls);
    const retryAfter = query(req, "retry-after");
    json(
      res,
      Number(query(req, "code")),
      { calls: calls.length },
      retryAfter === null ? {} : { "retry-after": retryAfter },
    );
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
