// The client's own cost per request, with no network: an in-memory transport
// (`withFetch`) answers every call with a canned JSON Response. Each case is
// one GET (or POST) through the client, the body read and parsed, so
// "case − transport alone" is the pipeline's overhead per request.
//
// Config of every client: no base URL (absolute URLs), the defaults (timeout
// 30 s, which arms a timer per call; 2 retries, never taken here; 20
// redirects, none taken). The five hooks are those of bench/clients.ts:
// withLogging (LoggingRequestHook, LoggingResponseHook, LoggingErrorHook; a
// no-op logger, so the lines are still built), CorrelationIdHook, and
// TokenAuthHook over a TokenManager whose cached token is valid for an hour.
// The error hook does not run on a success, so four of them run per call.
//
// `deno bench bench/pipeline_bench.ts`

import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import type { FetchLike } from "../mod.ts";
import { withFiveHooks } from "./clients.ts";
import { ECHO_BODY, ITEM } from "./_workload.ts";

const ITEM_TEXT = JSON.stringify(ITEM);
const ECHO_TEXT = JSON.stringify(ECHO_BODY);
const GET_URL = "http://127.0.0.1:8080/items/1";
const POST_URL = "http://127.0.0.1:8080/echo";

/** Answers like bench/server.ts, in memory: a fresh Response per call (a body is read once). */
const transport: FetchLike = (_input, init) =>
  Promise.resolve(
    new Response(init?.method === "POST" ? ECHO_TEXT : ITEM_TEXT, {
      headers: { "content-type": "application/json" },
    }),
  );

function client(configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder) {
  return new HttpClient(configure(new HttpClientConfigBuilder().withFetch(transport)).build());
}

const plain = client((builder) => builder);
const hooked = client(withFiveHooks);
const sevenHooks = client((builder) =>
  withFiveHooks(builder)
    .withRequestHook({ beforeRequest: (request) => request })
    .withResponseHook({ afterResponse: (response) => response })
);

Deno.bench("transport alone: Response, read, JSON.parse", {
  group: "pipeline GET",
  baseline: true,
}, async () => {
  const response = await transport(GET_URL, { method: "GET" });
  JSON.parse(new TextDecoder().decode(await response.arrayBuffer()));
});

Deno.bench("fetchline, 0 hooks", { group: "pipeline GET" }, async () => {
  (await plain.get(GET_URL)).json();
});

Deno.bench("fetchline, 5 hooks", { group: "pipeline GET" }, async () => {
  (await hooked.get(GET_URL)).json();
});

Deno.bench("fetchline, 5 hooks + 2 trivial (request, response)", {
  group: "pipeline GET",
}, async () => {
  (await sevenHooks.get(GET_URL)).json();
});

Deno.bench("transport alone: JSON.stringify, Response, read, JSON.parse", {
  group: "pipeline POST",
  baseline: true,
}, async () => {
  const body = JSON.stringify(ECHO_BODY);
  const response = await transport(POST_URL, { method: "POST", body });
  JSON.parse(new TextDecoder().decode(await response.arrayBuffer()));
});

Deno.bench("fetchline POST jsonData, 0 hooks", { group: "pipeline POST" }, async () => {
  (await plain.post(POST_URL, { jsonData: ECHO_BODY })).json();
});

Deno.bench("fetchline POST jsonData, 5 hooks", { group: "pipeline POST" }, async () => {
  (await hooked.post(POST_URL, { jsonData: ECHO_BODY })).json();
});
