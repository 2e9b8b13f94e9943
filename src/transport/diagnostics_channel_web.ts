// The npm package's Web build's `diagnostics_channel.ts` (scripts/build_npm.ts
// compiles it in that file's place): the Web build imports no `node:`
// module, so on Deno (which imports the npm package rarely; JSR serves it
// the sources) it asks `process.getBuiltinModule`, as on Bun.

import type { DiagnosticsChannel } from "./types.ts";

/** The runtime's `node:diagnostics_channel`, where `process.getBuiltinModule` gives it. */
export const diagnosticsChannel: DiagnosticsChannel | undefined = (() => {
  try {
    const process = (globalThis as {
      process?: { getBuiltinModule?: (name: string) => unknown };
    }).process;
    return process?.getBuiltinModule?.("node:diagnostics_channel") as
      | DiagnosticsChannel
      | undefined;
  } catch {
    return undefined;
  }
})();
