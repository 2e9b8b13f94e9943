// Routes of the client area: an echo, statuses, headers, encodings, bytes.

import { Buffer } from "node:buffer";
import { gzipSync } from "node:zlib";
import { echo, query } from "./http.mjs";

/** `size` bytes of a pattern a test can rebuild (byte i is i modulo 251). */
function pattern(size) {
  return Buffer.from(Array.from({ length: size }, (_, index) => index % 251));
}

export const routes = {
  "/client/echo": (req, res) => echo(req, res, { "x-request-id": "rid-7" }),
  "/client/status": (req, res) => {
    res.writeHead(Number(query(req, "code")), { "content-type": "text/plain" });
    res.end(`status ${query(req, "code")}`);
  },
  "/client/gzip": (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
    res.end(gzipSync("hello, gzip ".repeat(100)));
  },
  "/client/bytes": (req, res) => {
    const body = pattern(Number(query(req, "size")));
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": body.length,
    });
    res.end(body);
  },
  "/client/not-json": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{ not json");
  },
};
