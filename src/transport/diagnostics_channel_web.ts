// The npm package's Web build's `diagnostics_channel.ts` (scripts/build_npm.ts
// compiles it in that file's place): the Web build imports no `node:`
// module, so it asks `process.getBuiltinModule` (Bun, workerd with Node's
// APIs on, and Deno, which imports the npm package rarely: JSR serves it the
// sources).

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
