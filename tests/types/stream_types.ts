// What must and must not compile, checked by `deno check` (`deno task check`
// takes 'tests/**/*.ts'; this file is never run). Each `@ts-expect-error`
// line must fail to compile: if it ever compiled, the directive itself would
// be the error, so the check fails both ways.

import {
  type HttpClient,
  HttpClientConfigBuilder,
  type HttpMethod,
  HttpRequest,
  HttpResponse,
  type ServerSentEvent,
  type StandardSchemaV1,
  type StreamedHttpResponse,
  type TypedServerSentEvent,
} from "../../mod.ts";

/** A function that takes a buffered response. */
function buffered(response: HttpResponse): string {
  return response.text;
}

/** `client.stream()` resolves to a type without the members that need the whole body. */
export async function streamedResponses(client: HttpClient): Promise<void> {
  // Not annotated: the type is what stream() gives.
  await using streamed = await client.stream("GET", "/events");
  // What a streamed response offers before its body is read.
  const head: [number, string | undefined, boolean] = [
    streamed.statusCode,
    streamed.header("content-type"),
    streamed.isStreamed,
  ];
  const reads: [
    ReadableStream<Uint8Array>,
    AsyncGenerator<string>,
    AsyncGenerator<ServerSentEvent>,
  ] = [streamed.body, streamed.lines(), streamed.events()];
  void [head, reads, streamed.cancel(), streamed.raiseForStatus().body];

  // @ts-expect-error: json() of an unread stream does not compile
  streamed.json();
  // @ts-expect-error: nor json(schema)
  streamed.json({ "~standard": { version: 1, vendor: "x", validate: (value) => ({ value }) } });
  // @ts-expect-error: nor jsonOrUndefined()
  streamed.jsonOrUndefined();
  // @ts-expect-error: nor text
  void streamed.text;
  // @ts-expect-error: nor content
  void streamed.content;
  // @ts-expect-error: raiseForStatus() keeps the streamed type
  streamed.raiseForStatus().json();
  // @ts-expect-error: a stream is not a buffered response
  buffered(streamed);

  // read() gives a buffered response: all of it compiles.
  const whole: HttpResponse = await streamed.read();
  void [whole.json(), whole.text, whole.content, whole.jsonOrUndefined(), buffered(whole)];

  // A buffered response may stand where a streamed one is expected (a hook may have read it).
  const either: StreamedHttpResponse = whole;
  void either;
  // `instanceof` tells them apart at run time, and then the compiler follows.
  if (streamed instanceof HttpResponse) void streamed.text;
}

/** `request()` resolves to the streamed type with `stream: true`, the buffered one otherwise. */
export async function requests(client: HttpClient, request: HttpRequest): Promise<void> {
  const streamed = await client.request(request, { stream: true });
  // @ts-expect-error: a stream's body is unread
  streamed.json();
  const response = await client.request(request);
  void response.json();
  const options = await client.request(request, { stream: false, totalTimeout: 5 });
  void options.text;
}

/** Methods are the `HttpMethod` union, in either letter case where the run time takes both. */
export async function methods(client: HttpClient, request: HttpRequest): Promise<void> {
  const method: HttpMethod = request.method;
  void method;
  await client.stream("POST", "/chat");
  await client.stream("post", "/chat");
  await client.stream("QUERY", "/search");
  // @ts-expect-error: not an HTTP method the client sends
  await client.stream("FETCH", "/x");
  // @ts-expect-error: a typo
  await client.stream("GTE", "/x");
  const name: string = "GET";
  // @ts-expect-error: a string must be narrowed (or checked) first
  await client.stream(name, "/x");
  // @ts-expect-error: `with()` takes a method of the union
  request.with({ method: "FETCH" });
  // @ts-expect-error: the retry policy names methods of the union
  new HttpClientConfigBuilder().withRetry({ methods: ["GET", "FETCH"] });
  new HttpClientConfigBuilder().withRetry({ methods: ["GET", "post"] });
  // @ts-expect-error: comparing a method with a name outside the union is a mistake
  void (request.method === "FETCH");
  // The constructor keeps taking any string, as the contract says (checked at run time).
  void new HttpRequest(name, "/x");
  void new HttpRequest("delete", "/x");
}

/** The JSON style is one of two names. */
export function jsonStyles(): void {
  new HttpClientConfigBuilder().withJsonStyle("compact").withJsonStyle("python");
  // @ts-expect-error: no other style
  new HttpClientConfigBuilder().withJsonStyle("pretty");
}

/** Typed streams yield the schema's output: `events({ schema })` its `data`, `lines({ schema })` each item. */
export async function typedStreams(
  streamed: StreamedHttpResponse,
  chunk: StandardSchemaV1<unknown, { delta: string }>,
): Promise<void> {
  for await (const event of streamed.events({ schema: chunk, until: (e) => e.data === "[DONE]" })) {
    const typed: TypedServerSentEvent<{ delta: string }> = event;
    const delta: string = event.data.delta;
    const id: string = event.id;
    void [typed, delta, id];
    // @ts-expect-error: the data is the schema's output, not a string
    const text: string = event.data;
    void text;
  }
  for await (const item of streamed.lines({ schema: chunk, onInvalid: "skip" })) {
    const delta: string = item.delta;
    void delta;
    // @ts-expect-error: no such field in the schema's output
    void item.missing;
  }
  // Without a schema, events() yields the events as received; `until` alone is allowed.
  for await (const event of streamed.events({ until: (e) => e.data === "[DONE]" })) {
    const data: string = event.data;
    void data;
  }
  // @ts-expect-error: lines() takes no `until`
  streamed.lines({ schema: chunk, until: () => true });
  // @ts-expect-error: onInvalid is "throw" or "skip"
  streamed.events({ schema: chunk, onInvalid: "drop" });
  // @ts-expect-error: lines() with options needs a schema
  streamed.lines({ onInvalid: "skip" });
}
