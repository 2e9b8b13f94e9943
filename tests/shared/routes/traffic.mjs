// Routes of the traffic area. `/traffic/slow?run=&ms=` answers after `ms`
// (default 50) with the call's number and records, under `run`, how many
// calls it saw and the most in flight at once; `status=503` answers that
// status. `/traffic/paced?run=` answers its first call 429 with
// `Retry-After: 1`, the later ones 200, each with the ms since the first.
// `/traffic/first-slow?run=&ms=` answers its first call after `ms`, the later
// ones at once, each with its number; a call whose client went away before
// its answer is counted as abandoned.
// `/traffic/stats?run=` gives what was recorded: `{ count, mostAtOnce, abandoned }`.

import { json, query } from "./http.mjs";

function stats(state, id) {
  const name = `traffic:${id}`;
  const stat = state.get(name) ??
    { count: 0, inFlight: 0, mostAtOnce: 0, first: 0, abandoned: 0 };
  state.set(name, stat);
  return stat;
}

export const routes = {
  "/traffic/slow": (req, res, state) => {
    const stat = stats(state, query(req, "run"));
    const call = ++stat.count;
    stat.inFlight++;
    stat.mostAtOnce = Math.max(stat.mostAtOnce, stat.inFlight);
    setTimeout(() => {
      stat.inFlight--;
      json(res, Number(query(req, "status") ?? 200), { call });
    }, Number(query(req, "ms") ?? 50));
  },
  "/traffic/paced": (req, res, state) => {
    const stat = stats(state, query(req, "run"));
    const call = ++stat.count;
    if (call === 1) {
      stat.first = Date.now();
      return json(res, 429, { call }, { "retry-after": "1" });
    }
    json(res, 200, { call, sinceFirst: Date.now() - stat.first });
  },
  "/traffic/first-slow": (req, res, state) => {
    const stat = stats(state, query(req, "run"));
    const call = ++stat.count;
    const timer = setTimeout(
      () => json(res, 200, { call }),
      call === 1 ? Number(query(req, "ms") ?? 2000) : 0,
    );
    res.on("close", () => {
      if (res.writableFinished) return;
      clearTimeout(timer);
      stat.abandoned++;
    });
  },
  "/traffic/stats": (req, res, state) => {
    const { count, mostAtOnce, abandoned } = stats(state, query(req, "run"));
    json(res, 200, { count, mostAtOnce, abandoned });
  },
};
