// Routes of the middleware area. Each records the path of its calls under
// `?key=` (`/middleware/calls?key=` lists them): an echo, a chain of `?n=`
// redirects, a status that fails the first `?times=` calls, and a body held
// open after its first piece until `/middleware/release?key=` ends it.

import { echo, json, query } from "./http.mjs";

/** Records this call's path under the request's key. */
function record(req, state) {
  const name = `middleware:${query(req, "key")}`;
  const calls = state.get(name) ?? [];
  calls.push(new URL(req.url, "http://127.0.0.1").pathname);
  state.set(name, calls);
  return calls;
}

export const routes = {
  "/middleware/echo": (req, res, state) => {
    record(req, state);
    return echo(req, res, { "x-trail": "server" });
  },
  // `?n=2&key=k`: n more redirects (302), then the echo.
  "/middleware/chain": (req, res, state) => {
    record(req, state);
    req.resume();
    const n = Number(query(req, "n"));
    const key = query(req, "key");
    const location = n === 0
      ? `/middleware/echo?key=${key}`
      : `/middleware/chain?n=${n - 1}&key=${key}`;
    res.writeHead(302, { location, "content-type": "text/plain" });
    res.end(`to ${location}`);
  },
  // `?code=503&times=2&key=k`: the status for the first `times` calls, then 200.
  "/middleware/status": (req, res, state) => {
    const calls = record(req, state);
    req.resume();
    const failing = calls.length <= Number(query(req, "times") ?? "0");
    json(res, failing ? Number(query(req, "code")) : 200, { calls: calls.length });
  },
  // `?key=k`: the head and "first,", then the rest once released.
  "/middleware/held": (req, res, state) => {
    record(req, state);
    req.resume();
    res.writeHead(200, { "content-type": "text/plain" });
    res.write("first,");
    const name = `middleware:held:${query(req, "key")}`;
    state.set(name, () => res.end("rest"));
    res.once("close", () => state.delete(name));
  },
  "/middleware/release": (req, res, state) => {
    const release = state.get(`middleware:held:${query(req, "key")}`);
    release?.();
    json(res, release === undefined ? 404 : 200, { released: release !== undefined });
  },
  "/middleware/calls": (req, res, state) => {
    json(res, 200, { calls: state.get(`middleware:${query(req, "key")}`) ?? [] });
  },
};
