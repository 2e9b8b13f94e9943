// A program run by stream_abandoned_test.ts in a process of its own
// (`deno run abandoned_body_child.ts <url>`): it reads the first chunk of a
// streamed body whose server never ends it, with a long read timeout, and
// returns without cancelling the body. The process must then end, as a
// program that drops a fetch body does: nothing of the client's may hold it.

import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";

const client = new HttpClient(
  new HttpClientConfigBuilder().withBaseUrl(Deno.args[0]!).withReadTimeout(120).build(),
);
const response = await client.stream("GET", "/");
const { done } = await response.body.getReader().read();
console.log(done ? "ended" : "read one chunk");
