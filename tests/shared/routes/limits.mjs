// Routes of the limits area: a body of `?size=` bytes (gzip-encoded with
// `&gzip=1`), and an endless body that counts what it sent under `?key=`.

import { Buffer } from "node:buffer";
import { gzipSync } from "node:zlib";
import { json, query } from "./http.mjs";

/** The most an endless body sends, so the fixture stops even if a client never does. */
const ENDLESS_CAP = 64 * 1024 * 1024;

export const routes = {
  "/limits/sized": (req, res) => {
    req.resume();
    const plain = Buffer.alloc(Number(query(req, "size")), "x");
    const gzip = query(req, "gzip") === "1";
    const body = gzip ? gzipSync(plain) : plain;
    res.writeHead(200, {
      "content-type": "text/plain",
      "content-length": String(body.length),
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    });
    res.end(body);
  },
  // 16 KiB chunks as fast as the client reads them, up to ENDLESS_CAP; `done` once the client left.
  "/limits/endless": (req, res, state) => {
    req.resume();
    const name = `limits:${query(req, "key")}`;
    const sent = { bytes: 0, done: false };
    state.set(name, sent);
    const chunk = Buffer.alloc(16 * 1024, "y");
    res.writeHead(200, { "content-type": "application/octet-stream" });
    const pump = () => {
      while (!res.destroyed && sent.bytes < ENDLESS_CAP) {
        sent.bytes += chunk.length;
        if (!res.write(chunk)) return res.once("drain", pump);
      }
      if (!res.destroyed) res.end();
    };
    res.once("close", () => (sent.done = true));
    pump();
  },
  "/limits/sent": (req, res, state) => {
    json(res, 200, state.get(`limits:${query(req, "key")}`) ?? { bytes: 0, done: false });
  },
};
