/**
 * `deno task bench:signing`: the CPU an Ed25519 signature (RFC 9421) and a
 * DPoP proof (RFC 9449) add to a call on Deno. One process keeps three
 * clients on the same pool settings (plain, signing, DPoP-bound) and sends
 * interleaved blocks of GETs to bench/server.ts in another process, so the
 * server's CPU is not counted and the blocks share the machine's load. A
 * ratio is the median over rounds of a kind's process CPU time per request
 * ÷ the plain client's in the same round. Targets: signing ≤ 1.15, DPoP ≤ 1.10.
 * `--write` puts the figures in the "signing" section of bench/RESULTS.md.
 *
 * @module
 */

import { parseArgs } from "node:util";
import process from "node:process";
import { HttpClient, HttpClientConfigBuilder, TokenManager } from "../mod.ts";
import { TokenData } from "../config.ts";
import { DPoP, httpSignatures } from "../signing.ts";
import { spawnServer } from "./server.ts";
import { writeSection } from "./_results.ts";
import { PATHS } from "./_workload.mjs";

const args = parseArgs({
  args: Deno.args,
  options: { write: { type: "boolean" }, quick: { type: "boolean" } },
});
const ROUNDS = args.values.quick ? 5 : 21;
const BLOCK = args.values.quick ? 200 : 1000;

const server = await spawnServer();
const base = server.url;
const { privateKey } = await crypto.subtle.generateKey({ name: "Ed25519" }, false, [
  "sign",
  "verify",
]) as CryptoKeyPair;
const dpop = await DPoP.generate();
const token = new TokenData({ accessToken: "bench-token", tokenType: "DPoP", expiresIn: 3600 });
const tokenManager = new TokenManager([{ name: "static", fetch: () => Promise.resolve(token) }]);

const clients = {
  plain: new HttpClient(new HttpClientConfigBuilder().withBaseUrl(base).build()),
  ed25519: new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(base).withMiddleware(httpSignatures({
      keyId: "k1",
      key: privateKey,
      algorithm: "ed25519",
      components: ["@method", "@target-uri", "@authority"],
      expiresIn: "5m",
    })).build(),
  ),
  dpop: new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(base).withTokenAuth({ tokenManager, dpop }).build(),
  ),
};

/** CPU microseconds per request of one block of sequential GETs. */
async function block(client: HttpClient): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < BLOCK; i++) {
    const response = await client.get(PATHS.get);
    if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / BLOCK;
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[values.length >> 1]!;

try {
  for (const client of Object.values(clients)) await block(client); // warm-up
  const perCall: Record<keyof typeof clients, number[]> = { plain: [], ed25519: [], dpop: [] };
  const ratios = { ed25519: [] as number[], dpop: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const plain = await block(clients.plain);
    const signed = await block(clients.ed25519);
    const bound = await block(clients.dpop);
    perCall.plain.push(plain);
    perCall.ed25519.push(signed);
    perCall.dpop.push(bound);
    ratios.ed25519.push(signed / plain);
    ratios.dpop.push(bound / plain);
  }
  const rows = [
    ["plain GET", median(perCall.plain), 1, "", ""],
    ["Ed25519 signature (RFC 9421)", median(perCall.ed25519), median(ratios.ed25519), "≤ 1.15"],
    ["DPoP proof (RFC 9449)", median(perCall.dpop), median(ratios.dpop), "≤ 1.10"],
  ] as const;
  const lines = rows.map(([name, us, ratio, target]) =>
    `| ${name} | ${us.toFixed(0)} µs | ${ratio.toFixed(3)} | ${target} ${
      target === "" ? "" : ratio <= Number(target.slice(2)) ? "met" : "**missed**"
    } |`
  );
  const markdown = [
    "## Signing: CPU per call on Deno (`deno task bench:signing`)",
    "",
    `Deno ${Deno.version.deno}, ${ROUNDS} rounds of ${BLOCK} sequential GETs per kind, interleaved; ` +
    "process CPU per request (the server runs in another process); ratio = median of each round's ÷ plain.",
    "",
    "| kind | CPU per call | ratio to plain | target |",
    "|---|---|---|---|",
    ...lines,
  ].join("\n");
  console.log(markdown);
  if (args.values.write) await writeSection("signing", markdown);
} finally {
  for (const client of Object.values(clients)) await client.close();
  await server.close();
}
