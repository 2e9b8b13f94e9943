// Routes of the client area: an echo, statuses, headers, encodings, bytes.

import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { echo, json, query, readBody } from "./http.mjs";

/** `size` bytes of a pattern a test can rebuild (byte i is i modulo 251). */
function pattern(size) {
  return Buffer.from(Array.from({ length: size }, (_, index) => index % 251));
}

export const routes = {
  "/client/echo": (req, res) => echo(req, res, { "x-request-id": "rid-7" }),
  // What a server that signs or hashes the body computes: the SHA-256 of the bytes received.
  "/client/sha256": async (req, res) => {
    json(res, 200, { sha256: createHash("sha256").update(await readBody(req)).digest("hex") });
  },
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
