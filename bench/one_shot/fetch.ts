// A one-shot script with raw fetch: one GET with a 30 s deadline on a pool of
// its own, as a caller with a timeout writes it (bench/one_shot.ts times it).
using client = Deno.createHttpClient({});
const response = await fetch(`${Deno.args[0]}/items/1`, {
  client,
  signal: AbortSignal.timeout(30_000),
});
if ((await response.json()).id !== 1) throw new Error("Unexpected answer");
