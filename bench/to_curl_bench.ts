// toCurl and the JSON serializer, in memory: `deno task bench`.

import { HttpRequest } from "../mod.ts";
import { serializeJson, toCurl } from "../utils.ts";

const typical = new HttpRequest("POST", "https://api.example.com/v1/orders", {
  headers: {
    Accept: "application/json",
    "X-Request-Id": "3f9a0c12",
    Authorization: "Bearer abc.def.ghi",
  },
  params: { dryRun: true, tag: ["a", "b"] },
  jsonData: {
    customer: 42,
    items: [{ sku: "A-1", qty: 2 }, { sku: "B-7", qty: 1 }],
    note: "leave at the door",
  },
  timeout: 30,
});

Deno.bench("toCurl(): a typical JSON request", { group: "toCurl", baseline: true }, () => {
  toCurl(typical);
});

const body = {
  items: Array.from({ length: 5000 }, (_, i) => ({
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
