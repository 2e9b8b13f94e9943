// Raw TCP listeners for the faults Deno.serve cannot produce: each speaks
// just enough HTTP/1.1 to read a request, records it as the fixture server
// does, then misbehaves in one way. node:net, because only its
// `resetAndDestroy()` sends a TCP reset (Deno.Conn has no SO_LINGER, and its
// close() ends the connection cleanly even with data left unread).

import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { Buffer } from "node:buffer";
import type { RecordedRequest } from "./fixture_server.ts";

/**
 * How a raw listener misbehaves once it has read a whole request:
 * - `reset`: resets the connection (TCP RST) without answering;
 * - `reset-mid-body`: sends `Content-Length: 100` and 10 bytes, then resets;
 * - `truncated-chunked`: sends one chunk of a chunked body, then closes
 *   without the last chunk;
 * - `silent`: never answers, holding the connection until the client leaves;
 * - `trickle`: sends `Content-Length: 1000`, then one byte every 50 ms;
 * - `bad-status-line`: answers with a status line that is not HTTP.
 */
export type RawFault =
  | "reset"
  | "reset-mid-body"
  | "truncated-chunked"
  | "silent"
  | "trickle"
  | "bad-status-line";

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
