/**
 * The streams benchmark's server, in its own process so that its CPU time
 * and memory are not the client's. It generates every byte it sends (no
 * disk) and keeps none it receives:
 *
 * - `GET /bytes?n=N[&chunked]`: N bytes, with a Content-Length unless
 *   `chunked` is given (then chunked transfer coding, length unknown).
 * - `POST /upload`: reads the body a chunk at a time, answers
 *   `{"bytes": count}`.
 * - `GET /sse?count=N&every=MS` and `GET /ndjson?…`: N records, one every MS
 *   milliseconds, each with `t`, the time it was written:
 *   `performance.timeOrigin + performance.now()` (the clock's reading every
 *   process on the machine shares, in ms with sub-ms resolution).
 * - `GET /clock`: `{"t": …}` on the same clock, for the client to estimate
 *   the two processes' offset.
 *
 * It listens on 127.0.0.1, port 0, prints `{"port": N}` once it listens, and
 * shuts down when its stdin closes.
 *
 * ```sh
 * deno run --allow-net=127.0.0.1 bench/streams_server.ts
 * ```
 *
 * @module
 */

/** One generated chunk, sent again and again: the server allocates nothing per chunk. */
const CHUNK = new Uint8Array(256 * 1024).fill(0x61);
const encoder = new TextEncoder();
const now = () => performance.timeOrigin + performance.now();

function bytes(n: number, chunked: boolean): Response {
  let left = n;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (left <= 0) return controller.close();
      const size = Math.min(left, CHUNK.byteLength);
      left -= size;
      controller.enqueue(size === CHUNK.byteLength ? CHUNK : CHUNK.subarray(0, size));
    },
  }, { highWaterMark: 0 });
  const headers: Record<string, string> = { "content-type": "application/octet-stream" };
  if (!chunked) headers["content-length"] = String(n);
  return new Response(body, { headers });
}

function records(kind: "sse" | "ndjson", count: number, every: number): Response {
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = () => {
        const record = JSON.stringify({ i: sent, t: now() });
        const text = kind === "sse" ? `event: tick\ndata: ${record}\n\n` : `${record}\n`;
        controller.enqueue(encoder.encode(text));
        if (++sent === count) controller.close();
        else timer = setTimeout(write, every);
      };
      timer = setTimeout(write, every);
    },
    cancel: () => clearTimeout(timer),
  });
  const type = kind === "sse" ? "text/event-stream" : "application/x-ndjson";
  return new Response(body, { headers: { "content-type": type, "cache-control": "no-store" } });
}

async function answer(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const number = (name: string, fallback: number) => Number(url.searchParams.get(name) ?? fallback);
  switch (url.pathname) {
    case "/bytes":
      return bytes(number("n", 0), url.searchParams.has("chunked"));
    case "/upload": {
      let count = 0;
      for await (const chunk of request.body ?? []) count += chunk.byteLength;
      return Response.json({ bytes: count });
    }
    case "/sse":
    case "/ndjson":
      return records(
        url.pathname === "/sse" ? "sse" : "ndjson",
        number("count", 100),
        number("every", 20),
      );
    case "/clock":
      return Response.json({ t: now() });
    default:
      return new Response("not found", { status: 404 });
  }
}

if (import.meta.main) {
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ port })),
  }, answer);
  for await (const _ of Deno.stdin.readable) { /* nothing is sent */ }
  await server.shutdown();
}
