// A script that only imports mod.ts (bench/one_shot.ts times it against
// ./empty.ts: what the import alone adds to a process).
import { createClient } from "../../mod.ts";

if (typeof createClient !== "function") throw new Error("Unexpected module");
