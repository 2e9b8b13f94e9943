// Routes of the timeouts area: no answer, an answer after `?ms=`, a body that
// stalls after its head, a body that drips, and a 503 after `?ms=` that
// counts its calls under `?key=`. Timers stop when the client goes away.

import { json, query } from "./http.mjs";

/** Calls `fn` after `ms` unless the client has gone by then. */
function later(req, ms, fn) {
  const timer = setTimeout(fn, ms);
  req.socket.once("close", () => clearTimeout(timer));
}

export const routes = {
  "/timeouts/hang": (req) => req.resume(),
  "/timeouts/delay": (req, res) => {
    req.resume();
    later(req, Number(query(req, "ms")), () => json(res, 200, { late: true }));
  },
  // The head and 100 of 1000 bytes, then nothing.
  "/timeouts/stall-body": (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/plain", "content-length": "1000" });
    res.write("x".repeat(100));
  },
  // One byte every 20 ms, 100 in all (2 s).
  "/timeouts/drip": (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/plain" });
    let sent = 0;
    const timer = setInterval(() => {
      if (++sent > 100) {
        clearInterval(timer);
        return res.end();
      }
      res.write("x");
    }, 20);
    req.socket.once("close", () => clearInterval(timer));
  },
  // `?ms=150&key=k` (and `&retry-after=5`): a 503 after ms, counting calls.
  "/timeouts/busy": (req, res, state) => {
    req.resume();
    const name = `timeouts:${query(req, "key")}`;
    state.set(name, (state.get(name) ?? 0) + 1);
    const retryAfter = query(req, "retry-after");
    const headers = retryAfter === null ? {} : { "retry-after": retryAfter };
    later(req, Number(query(req, "ms") ?? "0"), () => json(res, 503, { busy: true }, headers));
  },
  "/timeouts/count": (req, res, state) => {
    json(res, 200, { calls: state.get(`timeouts:${query(req, "key")}`) ?? 0 });
  },
};
