// A program run by traffic_pacing_test.ts in a process of its own
// (`deno run traffic_pacing_child.ts <url>`): its server answers 429 with
// Retry-After: 50, and three calls that then wait for the pause end early,
// by their signal, their timeout and the client's close. The process must
// then end at once: no timer of theirs may hold it for the 50 s.

import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { serverPacing } from "../traffic.ts";

const pacing = serverPacing({ maxWaitSeconds: 60 });
const client = new HttpClient(
  new HttpClientConfigBuilder().withBaseUrl(Deno.args[0]!).withRetry({ maxRetries: 0 })
    .withMiddleware(pacing).build(),
);
console.log((await client.get("/")).statusCode);
const ended = await Promise.allSettled([
  client.get("/", { signal: AbortSignal.timeout(50) }),
  client.get("/", { timeout: 0.1 }),
  new Promise((resolve) => setTimeout(resolve, 150)).then(() => client.close()),
  client.get("/"),
]);
console.log(ended.map((outcome) => outcome.status).join(" "));
console.log(`waiting ${pacing.state()[Deno.args[0]!]?.waiting}`);
