/**
 * `deno task bench:cache`: what the HTTP cache costs (issue 28's targets).
 * One Deno process keeps three clients and sends to bench/server.ts in
 * another, in interleaved blocks (bench/_loop.mjs): `round trip` (no cache,
 * GET of the small JSON item), `hit` (a cache in memory, the same item
 * answered fresh for a day: every call but the first a hit) and `304` (the
 * same item with `no-cache` and an ETag: every call a revalidation the
 * server answers 304), `304 by hand` (no cache, `If-None-Match` sent by
 * hand: the same exchange), `answered` (a middleware answers every call
 * with the item, as a hit is built: a hit's call less the cache's own work).
 * Then the memory of a store of 10,000 small entries. `--write`
 * puts the figures in the "cache" section of bench/RESULTS.md.
 *
 * ```sh
 * deno task bench:cache           # 30 blocks of 2,000, then the memory: about 2 min
 * deno task bench:cache --quick   # 6 blocks of 300
 * ```
 *
 * @module
 */

import { HttpClient, HttpClientConfigBuilder, type HttpRequest, HttpResponse } from "../mod.ts";
import { HttpCache, MemoryCacheStore } from "../cache.ts";
import { spawnServer } from "./server.ts";
import { loadAverage, opening, table, writeSection } from "./_results.ts";
import { compare, median, rounds } from "./_loop.mjs";
import { checkAnswer, ITEM } from "./_workload.mjs";

const quick = Deno.args.includes("--quick");
const write = Deno.args.includes("--write");
const started = new Date();
const loadBefore = loadAverage();
await using server = await spawnServer();

const cached = (builder: HttpClientConfigBuilder) =>
  builder.withCache(new HttpCache({ store: new MemoryCacheStore() }));
const kinds: Record<string, [path: string, configure: (b: HttpClientConfigBuilder) => unknown]> = {
  "round trip": ["/items/1", (b) => b],
  "hit": ["/cached", cached],
  "304": ["/validated", cached],
  "304 by hand": ["/validated", (b) => b.withHeaders({ "If-None-Match": '"item-1"' })],
  "answered": ["/cached", (b) => b.withMiddleware(answer)],
};

/**
 * A middleware that answers every call with the item, built as a hit is
 * (a received response): a call of `answered` is a hit without the
 * cache's own work.
 */
function answer(request: HttpRequest): Promise<HttpResponse> {
  return Promise.resolve(
    new HttpResponse({
      statusCode: 200,
      headers: { "content-type": "application/json", "cache-control": "max-age=86400" },
      content: ITEM_BYTES,
      elapsedMs: 0,
      url: request.url,
      request,
    }),
  );
}
const ITEM_BYTES = new TextEncoder().encode(JSON.stringify(ITEM));

const clients = Object.fromEntries(
  Object.entries(kinds).map(([kind, [path, configure]]) => {
    const builder = new HttpClientConfigBuilder().withBaseUrl(server.url);
    configure(builder);
    return [kind, { client: new HttpClient(builder.build()), path }];
  }),
);
const sides = Object.fromEntries(
  Object.entries(clients).map(([kind, { client, path }]) => [
    kind,
    async () => {
      const response = await client.get(path);
      // The 304 by hand has no body: the item stands for it once its status is checked.
      if (kind !== "304 by hand") return response.json();
      if (response.statusCode !== 304) throw new Error(`${kind}: ${response.statusCode}`);
      return ITEM;
    },
  ]),
);
const blocks = quick ? 6 : 30;
const requests = quick ? 300 : 2_000;
const result = await rounds(sides, (body: unknown) => checkAnswer("get", body), {
  blocks,
  requests,
  concurrency: 1,
  warmup: requests,
});
for (const { client } of Object.values(clients)) client.close();

const cpu = (kind: string) => median(result.cpuUs[kind]!);
/** `kind`'s CPU per request as a share of the round trip's (the median of the rounds' ratios). */
const share = (kind: string) => compare(result, kind, "round trip").cpuRatio;
const own = cpu("hit") - cpu("answered");
const byHand = compare(result, "304", "304 by hand").cpuRatio;
const ownShare = own / cpu("round trip");
const rows = [
  ["round trip (no cache)", `${cpu("round trip").toFixed(1)} µs`, "1.00", ""],
  ["hit, the whole call", `${cpu("hit").toFixed(1)} µs`, share("hit").toFixed(2), ""],
  [
    "hit, the cache's own CPU (hit − answered by a middleware)",
    `${own.toFixed(1)} µs`,
    ownShare.toFixed(2),
    `≤ 0.05: ${ownShare <= 0.05 ? "met" : "**missed**"}`,
  ],
  [
    "304 revalidation, the whole call",
    `${cpu("304").toFixed(1)} µs`,
    share("304").toFixed(2),
    `≤ 1.10: ${share("304") <= 1.1 ? "met" : "**missed**"}`,
  ],
  [
    "a 304 round trip without the cache (If-None-Match sent by hand)",
    `${cpu("304 by hand").toFixed(1)} µs`,
    share("304 by hand").toFixed(2),
    "",
  ],
  [
    "304 revalidation ÷ the same 304 without the cache",
    "",
    byHand.toFixed(2),
    `≤ 1.10: ${byHand <= 1.1 ? "met" : "**missed**"}`,
  ],
];

// Memory: 10,000 entries of a JSON body (the small item, and one of 1 KiB) and their five
// headers, stored through the cache.
const ENTRIES = 10_000;
const gc = (globalThis as { gc?: () => void }).gc;
// The heap and what it holds outside (the bytes of ArrayBuffers).
const used = () => (({ heapUsed, external }) => heapUsed + external)(Deno.memoryUsage());

/** The memory row of entries of `text`'s body: its size, the bytes counted, the growth, the ratio. */
async function memoryOf(text: string): Promise<string[]> {
  const store = new MemoryCacheStore({ maxEntries: ENTRIES });
  const cache = new HttpCache({ store });
  const body = new TextEncoder().encode(text);
  const headers = {
    "content-type": "application/json",
    "content-length": String(body.byteLength),
    "cache-control": "max-age=86400",
    "etag": '"item-1"',
    "date": new Date().toUTCString(),
  };
  const payload = body.byteLength +
    Object.entries(headers).reduce((sum, [name, value]) => sum + name.length + value.length, 0);
  const client = new HttpClient(
    new HttpClientConfigBuilder().withFetch(() => Promise.resolve(new Response(body, { headers })))
      .withCache(cache).build(),
  );
  gc?.();
  const before = used();
  for (let i = 0; i < ENTRIES; i++) await client.get(`http://127.0.0.1/items/${i}`);
  await cache.whenIdle();
  gc?.();
  const held = used() - before;
  client.close();
  if (store.size !== ENTRIES) throw new Error(`${store.size} entries stored, not ${ENTRIES}`);
  const ratio = held / (ENTRIES * payload);
  return [
    `${body.byteLength} B`,
    `${payload} B`,
    `${(held / 2 ** 20).toFixed(1)} MiB`,
    `${ratio.toFixed(2)}×`,
    `≤ 1.5×: ${ratio <= 1.5 ? "met" : "**missed**"}`,
  ];
}
const memory = [
  await memoryOf(JSON.stringify(ITEM)),
  await memoryOf(
    JSON.stringify({ ...ITEM, notes: "n".repeat(1024 - JSON.stringify(ITEM).length - 12) }),
  ),
];

const section = `${
  opening({
    title: "HTTP cache",
    task: "bench:cache",
    file: "bench/cache.ts",
    started,
    loadBefore,
    quick,
  })
}

One Deno process, ${blocks} rounds of a block of ${requests.toLocaleString("en-US")} GETs (c=1) of
each client, the order rotating; bench/server.ts answers in another process. A share is the median
over rounds of the client's CPU time per request ÷ the round trip's (the same small JSON item, no
cache). The cache's own CPU on a hit is a hit's less that of a call a middleware answers with the
same item (no cache): what the cache adds to a call, against what a round trip costs. A 304 is
also compared with the same exchange without the cache (\`If-None-Match\` sent by hand).

${table(["", "CPU per call", "share of a round trip", "target"], rows, 2)}

The 304 path after the last changes (a --cpu-prof of 4,000 revalidations, Deno 2.9.6; the
cache's own samples): reading the 304's headers out of fetch's \`Headers\` (\`notModified\`: about
35%), building the served response (\`served\`, 11%), the store's read and the policy's judgement
(\`#read\`, \`evaluate\`: 17%), the key (9%) and the conditional request's copy (\`withHeaders\`, 8%).
The exchange by hand never reads the 304's headers; meeting 1.10× needs that read cheaper (the
transport handing the cache the raw header list) as well as the rest.

Memory: ${ENTRIES.toLocaleString("en-US")} entries in a MemoryCacheStore, stored through the cache,
each a JSON body and 5 headers (counted as the bytes of the body, and of the headers' names and
values); the growth of the heap and of external memory (ArrayBuffers)${
  gc === undefined ? ", without --expose-gc: rough" : ""
}:

${table(["body", "counted per entry", "growth", "÷ counted", "target"], memory, 3)}

Where a small entry's memory goes (84-byte body; V8's sizes, Deno 2.9.6): the packed string
(store.ts) is about 330 one-byte characters, of which the metadata's JSON is 218 (the 115 counted
bytes of headers, and 103 of framing: \`v\`, \`t\`, \`st\`, the quotes, and \`rescc\`, the
parsed Cache-Control again) and the prefix 20; the key (\`GET <url>\`, about 30 characters) and its
slot in the Map (about 50 bytes a key at 10,000 keys, measured alone) come on top. Dropping
\`rescc\` and the JSON framing of the headers would save about 60 bytes an entry (about 1.6×, a
change of the stored format every store shares: a new \`v\`); meeting 1.5× also needs the Map's slot
and the string's header gone: entries in one ArrayBuffer arena with an index of their own.`;
console.log(section);
if (write) await writeSection("cache", section);
