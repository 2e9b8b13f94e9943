// The JSON serializer the client and toCurl share (Python style, checked) on
// a 1 MB body, against JSON.stringify: `deno bench bench/json_bench.ts`.

import { HttpRequest } from "../mod.ts";
import { serializeJson } from "../utils.ts";

// 7,200 items: 1.05 MB of JSON.stringify text (UTF-8).
const body = {
  items: Array.from({ length: 7200 }, (_, i) => ({
    id: i,
    name: `item ${i} ünïcode`,
    price: i * 1.25,
    tags: ["x", "y", "z"],
    active: i % 2 === 0,
    meta: { created: "2026-11-21T00:00:00Z", owner: null },
  })),
};

Deno.bench("JSON.stringify: a 1 MB body", { group: "json", baseline: true }, () => {
  JSON.stringify(body);
});

Deno.bench("serializeJson: a 1 MB body (Python style)", { group: "json" }, () => {
  serializeJson(body);
});

Deno.bench('new HttpRequest("POST", url, { jsonData }): a 1 MB body', { group: "json" }, () => {
  new HttpRequest("POST", "http://127.0.0.1:8080/echo", { jsonData: body });
});

// Long texts take another path in serializeJson (JSON.stringify escapes them).
const documents = {
  documents: Array.from({ length: 1000 }, (_, i) => ({
    id: i,
    text: `Grüße, "quoted": line ${i}\n`.repeat(40),
  })),
};

Deno.bench("JSON.stringify: a 1 MB body of long strings", {
  group: "json-long",
  baseline: true,
}, () => {
  JSON.stringify(documents);
});

Deno.bench("serializeJson: a 1 MB body of long strings", { group: "json-long" }, () => {
  serializeJson(documents);
});
