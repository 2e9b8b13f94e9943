// Routes for the streams area. A held body is written by the test while the
// client reads it: `/streams/held?run=` sends the head (Content-Type from
// `type`) and keeps the response open under `run`; `/streams/write?run=&text=`
// writes a piece of it now, `/streams/end?run=` ends it, and
// `/streams/status?run=` tells whether the head was sent (`held`) and whether
// the client gave the body up (the connection closed before the end). `/streams/bytes` sends `size` bytes
// (byte i is i % 251) in pieces, with a Content-Length when `sized=1`,
// gzip-encoded when `gzip=1`. `/streams/flaky?run=` answers its first call
// with a 503 whose body is held, and later ones with "fine". `/streams/answer`
// answers `status` with the Content-Type `type` and the body `text`, whole.

import { Buffer } from "node:buffer";
import zlib from "node:zlib";

function paramsOf(req) {
  return new URL(req.url, "http://fixture").searchParams;
}

function heldOf(req, state) {
  const key = `streams:${paramsOf(req).get("run")}`;
  if (!state.has(key)) state.set(key, { res: undefined, cancelled: false, ended: false });
  return state.get(key);
}

/** Keeps `res` open as the held body of `req`'s run, noting a client that leaves early. */
function hold(req, res, state, status, headers) {
  const held = heldOf(req, state);
  held.res = res;
  res.on("close", () => {
    if (!held.ended) held.cancelled = true;
  });
  res.writeHead(status, headers);
  res.flushHeaders();
}

function bytes(size) {
  return Buffer.from(Uint8Array.from({ length: size }, (_, i) => i % 251));
}

function done(res) {
  res.writeHead(204);
  res.end();
}

export const routes = {
  "/streams/answer": (req, res) => {
    const params = paramsOf(req);
    res.writeHead(Number(params.get("status") ?? 200), { "content-type": params.get("type") });
    res.end(params.get("text") ?? "");
  },
  "/streams/held": (req, res, state) => {
    hold(req, res, state, 200, { "content-type": paramsOf(req).get("type") ?? "text/plain" });
  },
  "/streams/write": (req, res, state) => {
    heldOf(req, state).res?.write(paramsOf(req).get("text") ?? "");
    done(res);
  },
  "/streams/end": (req, res, state) => {
    const held = heldOf(req, state);
    held.ended = true;
    held.res?.end();
    done(res);
  },
  "/streams/status": (req, res, state) => {
    const { res: body, cancelled, ended } = heldOf(req, state);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ held: body !== undefined, cancelled, ended }));
  },
  "/streams/bytes": (req, res) => {
    const params = paramsOf(req);
    const size = Number(params.get("size") ?? 0);
    let body = bytes(size);
    const headers = { "content-type": "application/octet-stream" };
    if (params.get("gzip") === "1") {
      body = zlib.gzipSync(body);
      headers["content-encoding"] = "gzip";
    }
    if (params.get("sized") === "1") headers["content-length"] = String(body.length);
    res.writeHead(200, headers);
    const piece = Number(params.get("piece") ?? 40_000);
    let offset = 0;
    const next = () => {
      if (offset >= body.length) return void res.end();
      const chunk = body.subarray(offset, offset += piece);
      if (res.write(chunk)) setImmediate(next);
      else res.once("drain", next);
    };
    next();
  },
  "/streams/flaky": (req, res, state) => {
    const key = `streams:flaky:${paramsOf(req).get("run")}`;
    const calls = (state.get(key) ?? 0) + 1;
    state.set(key, calls);
    if (calls > 1) return void res.end("fine");
    hold(req, res, state, 503, { "content-type": "text/plain" });
    res.write("unavailable");
  },
};
