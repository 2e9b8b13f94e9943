// The same one-shot script on Node with fetchline's npm build, with its
// defaults (bench/one_shot.ts times it against ./fetch.mjs, both copied into
// the folder npm installed the package into: it is imported by name).
import process from "node:process";

const PACKAGE = "@fetchline/fetchline";
const { createClient } = await import(PACKAGE);
const client = createClient(process.argv[2]);
try {
  if ((await client.get("/items/1")).json().id !== 1) throw new Error("Unexpected answer");
} finally {
  await client.close();
}
