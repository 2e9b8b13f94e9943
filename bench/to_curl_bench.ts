// toCurl of a typical request, in memory: `deno bench bench/to_curl_bench.ts`.

import { HttpRequest } from "../mod.ts";
import { toCurl } from "../utils.ts";

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
