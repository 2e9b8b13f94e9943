// `node:diagnostics_channel`, for the tracing channels: runtime.ts imports
// this file when a process's first call starts (on Deno, asking
// `process.getBuiltinModule` for it instead would start Deno's Node layer:
// runtime.ts says what that costs). The npm package's Web build compiles
// `diagnostics_channel_web.ts` in its place, so that build imports no
// `node:` module.

import diagnostics from "node:diagnostics_channel";
import type { DiagnosticsChannel } from "./types.ts";

/** The runtime's `node:diagnostics_channel`. */
export const diagnosticsChannel: DiagnosticsChannel | undefined = diagnostics;
