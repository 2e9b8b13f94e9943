// The same one-shot script with fetchline from this tree, with its defaults
// (bench/one_shot.ts times it against ./fetch.ts).
import { createClient } from "../../mod.ts";

await using client = createClient(Deno.args[0] ?? "");
if ((await client.get("/items/1")).json<{ id: number }>().id !== 1) {
  throw new Error("Unexpected answer");
}
