/**
 * An LLM-style token stream over Server-Sent Events: the server sends one
 * token per event with a short pause between them, and the client prints
 * each token the moment it arrives, stopping at the `[DONE]` event.
 *
 * Run it with `deno task example:sse`.
 *
 * @module
 */

import { createClient } from "@fetchline/fetchline";

const TOKENS = [
  "Streams",
  " let",
  " you",
  " read",
  " a",
  " reply",
  " as",
  " it",
  " is",
  " written.",
];

/**
 * A stand-in for a model's API: `POST /v1/complete` answers with a
 * `text/event-stream`, one token per event, then `[DONE]`, and then keeps the
 * connection open, as some servers and proxies do: the client must stop
 * reading at the marker rather than wait for the end of the body.
 */
function startServer() {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    const encoder = new TextEncoder();
    const chunks = [
      ...TOKENS.map((token) => `data: ${JSON.stringify({ token })}\n\n`),
      ": a comment line, ignored by readers\n\ndata: [DONE]\n\n", // the end marker of many LLM APIs
    ];
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const chunk = chunks.shift();
        if (chunk === undefined) return; // after [DONE]: idle, open until the client leaves
        await new Promise((resolve) => setTimeout(resolve, 20)); // the model "thinking"
        controller.enqueue(encoder.encode(chunk));
      },
    }, { highWaterMark: 0 });
    return new Response(body, {
      headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" },
    });
  });
}

/**
 * Streams a completion and writes each token as it comes.
 *
 * @param write Where the text goes: standard output by default.
 * @returns The whole reply, joined from its tokens.
 */
export async function main(
  write: (text: string) => void = (text) => Deno.stdout.writeSync(new TextEncoder().encode(text)),
): Promise<string> {
  await using server = startServer();
  await using client = createClient(`http://127.0.0.1:${server.addr.port}`);

  // `stream()` resolves at the response head: the events are read as they arrive.
  // `await using` cancels the body when the block ends: after the break at
  // [DONE], it closes the connection the server would keep open.
  await using response = await client.stream("POST", "/v1/complete", {
    jsonData: { prompt: "Why stream?" },
    readTimeout: 5, // a stalled stream fails after 5 s without a new chunk
  });
  write(`${response.statusCode} ${response.header("content-type")}\n> `);

  let reply = "";
  for await (const event of response.events()) {
    if (event.data === "[DONE]") break; // the end marker: stop reading, the body never ends
    const { token } = JSON.parse(event.data) as { token: string };
    reply += token;
    write(token);
  }
  write("\n");
  return reply;
}

if (import.meta.main) await main();
