/**
 * A streamed LLM answer, typed: a local fake chat server writes the answer
 * as Server-Sent Events, each `data` a JSON chunk, and ends with
 * `data: [DONE]`, as the big LLM APIs do. `response.events({ schema, until })`
 * parses and checks each chunk with a zod schema (any Standard Schema
 * validator works), types it from the schema, and ends the loop at
 * `[DONE]`: no `JSON.parse`, no type cast. A chunk that does not match
 * fails the loop with a `ResponseParseException` naming its index.
 *
 * Run it with `deno task example:llm-stream`.
 *
 * @module
 */

import { createClient, ResponseParseException } from "@fetchline/fetchline";
import { z } from "zod";

/** One chunk of the answer, as the fake server writes it (an OpenAI-like shape). */
const Chunk = z.object({
  id: z.string(),
  choices: z.array(z.object({
    index: z.number(),
    delta: z.object({ content: z.string().optional() }),
    finish_reason: z.string().nullable(),
  })),
});

const ANSWER = [
  "Streams ",
  "let ",
  "you ",
  "read ",
  "a ",
  "reply ",
  "as ",
  "it ",
  "is ",
  "written.",
];

/** A fake chat completion endpoint: `POST /chat` streams `ANSWER`; `POST /broken` sends a bad chunk. */
function startServer() {
  const encoder = new TextEncoder();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const broken = new URL(request.url).pathname === "/broken";
      async function* chunks() {
        for (const [index, content] of ANSWER.entries()) {
          const chunk = broken && index === 2
            ? { id: "chat-1", choices: "none" }
            : { id: "chat-1", choices: [{ index: 0, delta: { content }, finish_reason: null }] };
          yield encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        yield encoder.encode("data: [DONE]\n\n");
      }
      return new Response(ReadableStream.from(chunks()), {
        headers: { "Content-Type": "text/event-stream" },
      });
    },
  );
  return {
    port: server.addr.port,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/**
 * Streams an answer token by token, then shows a chunk that does not match
 * the schema failing the loop.
 *
 * @param write Where the text goes: stdout by default.
 * @returns The whole answer.
 */
export async function main(
  write: (text: string) => void = (text) => Deno.stdout.writeSync(new TextEncoder().encode(text)),
): Promise<string> {
  await using server = startServer();
  await using client = createClient(`http://127.0.0.1:${server.port}`);

  let answer = "";
  {
    await using response = await client.stream("POST", "/chat", {
      jsonData: { messages: [{ role: "user", content: "What are streams for?" }], stream: true },
    });
    write("> ");
    const chunks = response.events({ schema: Chunk, until: (event) => event.data === "[DONE]" });
    for await (const { data } of chunks) {
      // `data` is typed from the schema: no cast.
      const token = data.choices[0]?.delta.content ?? "";
      answer += token;
      write(token);
    }
    write("\n");
  }

  try {
    await using response = await client.stream("POST", "/broken", { jsonData: {} });
    for await (const _ of response.events({ schema: Chunk, until: (e) => e.data === "[DONE]" })) {
      // The first two chunks match.
    }
  } catch (error) {
    if (!(error instanceof ResponseParseException)) throw error;
    write(`${error.name}: ${error.message}\n`);
  }
  return answer;
}

if (import.meta.main) await main();
