// The one-shot script on Node with its own fetch: one GET with a 30 s
// deadline, as a caller with a timeout writes it (bench/one_shot.ts times it).
import process from "node:process";

const response = await fetch(`${process.argv[2]}/items/1`, {
  signal: AbortSignal.timeout(30_000),
});
if ((await response.json()).id !== 1) throw new Error("Unexpected answer");
