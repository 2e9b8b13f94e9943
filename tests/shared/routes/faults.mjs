// Routes for the faults area: each reads the whole request, counts it under
// its `key` query parameter, then misbehaves on the raw socket in one way
// (node:http's own response is never started). `/faults/seen` answers the
// methods of the requests a key saw, in order. Raw answers carry the CORS header themselves, so
// a page sees the fault and not a CORS refusal.

import { Buffer } from "node:buffer";
import zlib from "node:zlib";

const CORS = "Access-Control-Allow-Origin: *\r\n";

/** Bodies that are not valid for their coding (the deflate one has a zlib header). */
const CORRUPT = {
  gzip: Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4]),
  br: Buffer.from([0xff, 0xff, 0xff, 0xff, 0xfe, 0x12, 0x34, 0x56, 0x78, 0x9a]),
  deflate: Buffer.from([0x78, 0x9c, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]),
};

function withBody(headers, body) {
  const head = `HTTP/1.1 200 OK\r\n${CORS}${headers}Content-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/** The raw answers, by route name: each gets the socket once the request is read. */
const FAULTS = {
  "reset": (socket) => socket.resetAndDestroy(),
  "reset-mid-body": (socket) =>
    socket.write(
      `HTTP/1.1 200 OK\r\n${CORS}Content-Length: 100\r\n\r\n0123456789`,
      () => socket.resetAndDestroy(),
    ),
  "closed-before-head": (socket) => socket.end(),
  "cut-body": (socket) =>
    socket.end(`HTTP/1.1 200 OK\r\n${CORS}Content-Length: 100\r\n\r\n0123456789`),
  "truncated-chunked": (socket) =>
    socket.end(
      `HTTP/1.1 200 OK\r\n${CORS}Transfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n`,
    ),
  "bad-status-line": (socket) =>
    socket.end(`HTTP/1.1 TWO-HUNDRED Fine\r\n${CORS}Content-Length: 0\r\n\r\n`),
  "garbage": (socket) => socket.end("garbage, not HTTP\r\n\r\n"),
  "corrupt-gzip": (socket) => socket.end(withBody("Content-Encoding: gzip\r\n", CORRUPT.gzip)),
  "corrupt-br": (socket) => socket.end(withBody("Content-Encoding: br\r\n", CORRUPT.br)),
  "corrupt-deflate": (socket) =>
    socket.end(withBody("Content-Encoding: deflate\r\n", CORRUPT.deflate)),
  "truncated-gzip": (socket) => {
    const gzip = zlib.gzipSync(Buffer.alloc(64 * 1024, "a"), { level: 0 });
    const head =
      `HTTP/1.1 200 OK\r\n${CORS}Content-Encoding: gzip\r\nContent-Length: ${gzip.length}\r\n\r\n`;
    socket.end(Buffer.concat([Buffer.from(head), gzip.subarray(0, gzip.length / 2)]));
  },
  "many-headers": (socket) => {
    const line = (i) => `x-filler-${String(i).padStart(3, "0")}: ${"v".repeat(85)}\r\n`;
    const lines = Array.from({ length: 200 }, (_, i) => line(i)).join("");
    socket.end(`HTTP/1.1 200 OK\r\n${CORS}${lines}Content-Length: 2\r\n\r\nok`);
  },
};

function keyOf(req) {
  return `faults:${new URL(req.url, "http://fixture").searchParams.get("run")}`;
}

function misbehaving(fault) {
  return (req, _res, state) => {
    const key = keyOf(req);
    state.set(key, [...(state.get(key) ?? []), req.method]);
    // The client giving up mid-fault is what these routes are for.
    req.socket.on("error", () => {});
    req.resume();
    req.on("end", () => fault(req.socket));
  };
}

/** The text the `/faults/encoded` route sends, compressed. */
const TEXT = JSON.stringify({ text: "héllo ".repeat(1000) });

const ENCODERS = {
  "gzip": (bytes) => zlib.gzipSync(bytes),
  "deflate": (bytes) => zlib.deflateSync(bytes),
  "deflate-raw": (bytes) => zlib.deflateRawSync(bytes),
  "br": (bytes) => zlib.brotliCompressSync(bytes),
};

export const routes = {
  /** A valid body in the `coding` asked for (raw deflate is sent as "deflate", as some servers do). */
  "/faults/encoded": (req, res) => {
    const coding = new URL(req.url, "http://fixture").searchParams.get("coding");
    const body = ENCODERS[coding](Buffer.from(TEXT));
    res.writeHead(200, {
      "content-type": "application/json",
      "content-encoding": coding === "deflate-raw" ? "deflate" : coding,
      "content-length": String(body.length),
    });
    res.end(body);
  },
  ...Object.fromEntries(
    Object.entries(FAULTS).map(([name, fault]) => [`/faults/${name}`, misbehaving(fault)]),
  ),
  "/faults/seen": (req, res, state) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ methods: state.get(keyOf(req)) ?? [] }));
  },
};
