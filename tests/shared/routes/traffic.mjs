// Routes of the traffic area. `/traffic/slow?run=&ms=` answers after `ms`
// (default 50) with the call's number and records, under `run`, how many
// calls it saw and the most in flight at once; `status=503` answers that
// status. `/traffic/paced?run=` answers its first call 429 with
// `Retry-After: 1`, the later ones 200, each with the ms since the first.
// `/traffic/first-slow?run=&ms=` answers its first call after `ms`, the later
// ones at once, each with its number; a call whose client went away before
// its answer is counted as abandoned.
// `/traffic/stats?run=` gives what was recorded: `{ count, mostAtOnce, abandoned }`.
// `/traffic/resumable?run=&size=&cut=` serves `size` bytes of a pattern
// (byte i is (7i + (i >> 8)) & 0xff) with a strong ETag and `Accept-Ranges:
// bytes`; its first request of a run is reset after `cut` bytes of the body,
// the later ones honour `Range: bytes=N-` under a matching `If-Range` (a 206),
// else send the whole body. `/traffic/resumable-seen?run=` gives the
// `{ range, ifRange }` of each request the run saw, in order.

import { Buffer } from "node:buffer";
import { json, query } from "./http.mjs";

const ETAG = '"resumable-v1"';

/** The pattern `/traffic/resumable` serves: a splice at a wrong offset breaks it. */
function pattern(size) {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  return bytes;
}

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
  "/traffic/resumable": (req, res, state) => {
    const name = `traffic-resumable:${query(req, "run")}`;
    const seen = state.get(name) ?? [];
    state.set(name, seen);
    const range = req.headers["range"];
    const ifRange = req.headers["if-range"];
    seen.push({ range: range ?? null, ifRange: ifRange ?? null });
    const body = pattern(Number(query(req, "size") ?? 100_000));
    const head = {
      "content-type": "application/octet-stream",
      "cache-control": "no-store",
      "accept-ranges": "bytes",
      "etag": ETAG,
    };
    const from = /^bytes=(\d+)-$/.exec(range ?? "");
    if (from !== null && (ifRange === undefined || ifRange === ETAG)) {
      const start = Number(from[1]);
      res.writeHead(206, {
        ...head,
        "content-range": `bytes ${start}-${body.length - 1}/${body.length}`,
        "content-length": String(body.length - start),
      });
      return res.end(body.subarray(start));
    }
    res.writeHead(200, { ...head, "content-length": String(body.length) });
    if (seen.length > 1) return res.end(body);
    // The first answer breaks off: a reset once the first `cut` bytes are written.
    req.socket.on("error", () => {});
    res.write(body.subarray(0, Number(query(req, "cut") ?? 10_000)), () => {
      setTimeout(() => req.socket.resetAndDestroy(), 20);
    });
  },
  "/traffic/resumable-seen": (req, res, state) => {
    json(res, 200, state.get(`traffic-resumable:${query(req, "run")}`) ?? []);
  },
  "/traffic/stats": (req, res, state) => {
    const { count, mostAtOnce, abandoned } = stats(state, query(req, "run"));
    json(res, 200, { count, mostAtOnce, abandoned });
  },
};
