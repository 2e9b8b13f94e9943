// Routes of the redirects area: a redirect of any status to any target, a
// chain, a loop, and a landing that echoes what arrived.

import { count, echo, query } from "./http.mjs";

function redirect(res, status, location) {
  res.writeHead(status, { location, "content-type": "text/plain" });
  res.end(`to ${location}`);
}

export const routes = {
  // `?status=302&to=/redirects/landing&key=k`: counts its calls under `key`.
  "/redirects/to": (req, res, state) => {
    count(state, `redirects:${query(req, "key")}`);
    req.resume();
    redirect(res, Number(query(req, "status")), query(req, "to"));
  },
  "/redirects/landing": (req, res) => echo(req, res),
  // `?n=3&key=k`: n more redirects, then the landing; counts every hop under `key`.
  "/redirects/chain": (req, res, state) => {
    const hops = count(state, `redirects:${query(req, "key")}`);
    const n = Number(query(req, "n"));
    if (n === 0) return echo(req, res, { "x-hops": String(hops) });
    redirect(res, 302, `/redirects/chain?n=${n - 1}&key=${query(req, "key")}`);
  },
  "/redirects/loop": (req, res) => redirect(res, 302, req.url),
  "/redirects/count": (req, res, state) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ calls: state.get(`redirects:${query(req, "key")}`) ?? 0 }));
  },
};
