// Raw TCP listeners for the faults Deno.serve cannot produce: each speaks
// just enough HTTP/1.1 to read a request, records it as the fixture server
// does, then misbehaves in one way. node:net, because only its
// `resetAndDestroy()` sends a TCP reset (Deno.Conn has no SO_LINGER, and its
// close() ends the connection cleanly even with data left unread).

import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { Buffer } from "node:buffer";
import zlib from "node:zlib";
import type { RecordedRequest } from "./fixture_server.ts";

/**
 * How a raw listener misbehaves once it has read a whole request:
 * - `reset`: resets the connection (TCP RST) without answering;
 * - `reset-mid-body`: sends `Content-Length: 100` and 10 bytes, then resets;
 * - `truncated-chunked`: sends one chunk of a chunked body, then closes
 *   without the last chunk;
 * - `silent`: never answers, holding the connection until the client leaves;
 * - `trickle`: sends `Content-Length: 1000`, then one byte every 50 ms;
 * - `bad-status-line`: answers with a status line that is not HTTP;
 * - `garbage`: answers with text that is not HTTP at all;
 * - `closed-before-head`, `closed-within-head`: closes the connection
 *   without an answer, or within the status line's headers;
 * - `big-header`: one header line of 512 KiB;
 * - `corrupt-gzip`, `corrupt-br`, `corrupt-deflate`: a whole body (its
 *   Content-Length sent) that is not valid for its Content-Encoding;
 * - `truncated-gzip`: the first half of a valid gzip body, then closes
 *   before its Content-Length;
 * - `many-headers`: 200 header lines of 100 bytes (20 KB in all);
 * - `gzip-bomb`, `br-bomb`: 300 MiB of zeros, compressed (3 MB and 56 KB);
 * - `zeros-257mib-gzip`: 257 MiB of zeros gzip-compressed, chunked;
 * - `zeros-192mib-chunked`: 192 MiB of zeros, chunked, made as they are sent.
 */
export type RawFault =
  | "reset"
  | "reset-mid-body"
  | "truncated-chunked"
  | "silent"
  | "trickle"
  | "bad-status-line"
  | "garbage"
  | "closed-before-head"
  | "closed-within-head"
  | "big-header"
  | "corrupt-gzip"
  | "corrupt-br"
  | "corrupt-deflate"
  | "truncated-gzip"
  | "many-headers"
  | "gzip-bomb"
  | "br-bomb"
  | "zeros-257mib-gzip"
  | "zeros-192mib-chunked";

/** A running raw listener. */
export interface RawServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Connections accepted and not yet closed. */
  readonly openConnections: number;
  /** Closes the listener and every connection, and waits for them. */
  close(): Promise<void>;
}

const HEAD_END = "\r\n\r\n";

/** Starts a listener that answers every connection with `fault`, recording into `requests`. */
export async function startRawServer(
  fault: RawFault,
  requests: RecordedRequest[],
): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setInterval>>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // The client giving up mid-fault is what these listeners are for.
    socket.on("error", () => {});
    readRequest(socket, (recorded) => {
      requests.push(recorded);
      misbehave(socket, fault, timers);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get openConnections() {
      return sockets.size;
    },
    async close() {
      for (const id of timers) clearInterval(id);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function misbehave(
  socket: Socket,
  fault: RawFault,
  timers: Set<ReturnType<typeof setInterval>>,
): void {
  switch (fault) {
    case "reset":
      return void socket.resetAndDestroy();
    case "reset-mid-body":
      return void socket.write(
        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789",
        () => socket.resetAndDestroy(),
      );
    case "truncated-chunked":
      return void socket.end(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n",
      );
    case "bad-status-line":
      return void socket.end("HTTP/1.1 TWO-HUNDRED Fine\r\nContent-Length: 0\r\n\r\n");
    case "garbage":
      return void socket.end("garbage, not HTTP\r\n\r\n");
    case "closed-before-head":
      return void socket.end();
    case "closed-within-head":
      return void socket.end("HTTP/1.1 200 OK\r\nContent-Le");
    case "big-header":
      return void socket.end(
        `HTTP/1.1 200 OK\r\nx-big: ${"v".repeat(512 * 1024)}\r\nContent-Length: 0\r\n\r\n`,
      );
    case "corrupt-gzip":
    case "corrupt-br":
    case "corrupt-deflate": {
      const coding = fault.slice("corrupt-".length);
      return void socket.end(withBody(`Content-Encoding: ${coding}\r\n`, CORRUPT[coding]!));
    }
    case "truncated-gzip": {
      const gzip = zlib.gzipSync(Buffer.alloc(64 * 1024, "a"), { level: 0 });
      const head =
        `HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${gzip.length}\r\n\r\n`;
      return void socket.end(Buffer.concat([Buffer.from(head), gzip.subarray(0, gzip.length / 2)]));
    }
    case "many-headers": {
      const line = (i: number) => `x-filler-${String(i).padStart(3, "0")}: ${"v".repeat(85)}\r\n`;
      const lines = Array.from({ length: 200 }, (_, i) => line(i)).join("");
      return void socket.end(`HTTP/1.1 200 OK\r\n${lines}Content-Length: 2\r\n\r\nok`);
    }
    case "gzip-bomb":
    case "br-bomb":
    case "zeros-257mib-gzip": {
      const coding = fault === "br-bomb" ? "br" : "gzip";
      const size = (fault === "zeros-257mib-gzip" ? 257 : 300) * 2 ** 20;
      return void compressedZeros(coding, size).then((body) => {
        if (!socket.destroyed) socket.end(withBody(`Content-Encoding: ${coding}\r\n`, body));
      });
    }
    case "zeros-192mib-chunked":
      return sendZeros(socket, 192 * 2 ** 20);
    case "silent":
      return;
    case "trickle": {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
      let sent = 0;
      const id = setInterval(() => {
        if (socket.destroyed || ++sent > 1000) stop();
        else socket.write("x");
      }, 50);
      const stop = () => (clearInterval(id), timers.delete(id));
      timers.add(id);
      socket.on("close", stop);
      return;
    }
  }
}

/** Bodies that are not valid for their coding (the deflate one has a zlib header). */
const CORRUPT: Record<string, Uint8Array> = {
  gzip: new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4]),
  br: new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xfe, 0x12, 0x34, 0x56, 0x78, 0x9a]),
  deflate: new Uint8Array([0x78, 0x9c, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]),
};

function withBody(headers: string, body: Uint8Array): Buffer {
  const head = `HTTP/1.1 200 OK\r\n${headers}Content-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

const compressed = new Map<string, Promise<Uint8Array>>();

/** `size` bytes of zeros compressed a MiB at a time (never held whole), made once per run. */
export function compressedZeros(coding: "gzip" | "br", size: number): Promise<Uint8Array> {
  const key = `${coding} ${size}`;
  let made = compressed.get(key);
  if (made === undefined) {
    const stream = coding === "gzip"
      ? zlib.createGzip({ level: 1 })
      : zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } });
    made = collect(stream, size);
    compressed.set(key, made);
  }
  return made;
}

function collect(stream: zlib.Gzip | zlib.BrotliCompress, size: number): Promise<Uint8Array> {
  const zeros = Buffer.alloc(2 ** 20);
  const out: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => out.push(chunk));
  return new Promise((resolve, reject) => {
    stream.on("end", () => resolve(new Uint8Array(Buffer.concat(out))));
    stream.on("error", reject);
    let written = 0;
    const pump = () => {
      while (written < size) {
        written += zeros.length;
        if (!stream.write(zeros)) return void stream.once("drain", pump);
      }
      stream.end();
    };
    pump();
  });
}

/** Sends `size` bytes of zeros as a chunked body, a MiB at a time as the socket drains. */
function sendZeros(socket: Socket, size: number): void {
  const chunk = Buffer.concat([
    Buffer.from("100000\r\n"),
    Buffer.alloc(2 ** 20),
    Buffer.from("\r\n"),
  ]);
  socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
  let sent = 0;
  const pump = () => {
    while (sent < size) {
      sent += 2 ** 20;
      if (!socket.write(chunk)) return void socket.once("drain", pump);
    }
    socket.end("0\r\n\r\n");
  };
  pump();
}

/** Collects one request (head and Content-Length body), then calls `done` once. */
function readRequest(socket: Socket, done: (recorded: RecordedRequest) => void): void {
  let received = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const end = received.indexOf(HEAD_END);
    if (end === -1) return;
    const recorded = parseHead(received.subarray(0, end).toString("latin1"), socket);
    const length = Number(recorded.headers["content-length"] ?? 0);
    const body = received.subarray(end + HEAD_END.length);
    if (body.length < length) return;
    socket.off("data", onData);
    done({ ...recorded, body: new Uint8Array(body.subarray(0, length)) });
  };
  socket.on("data", onData);
}

function parseHead(head: string, socket: Socket): RecordedRequest {
  const [requestLine = "", ...lines] = head.split("\r\n");
  const [method = "", target = ""] = requestLine.split(" ");
  const [path = "", query = ""] = target.split("?");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { method, path, query, headers, body: new Uint8Array(), remotePort: socket.remotePort! };
}
