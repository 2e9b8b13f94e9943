// The name of the runtime the code runs on, for the errors that refuse what
// it cannot give (a pool, a file system): "Bun has no connection pool" tells
// the reader where the limit comes from, "this runtime" does not.

/** The globals that tell runtimes apart; each is absent on the others. */
export interface RuntimeGlobals {
  readonly Bun?: unknown;
  readonly Deno?: unknown;
  readonly process?: { readonly versions?: { readonly node?: string } };
  readonly navigator?: { readonly userAgent?: string };
  readonly document?: unknown;
  readonly WorkerGlobalScope?: unknown;
}

/**
 * Names the runtime from its globals. Bun and workerd (with its Node
 * compatibility on) also give `process.versions.node`, so they are asked
 * first; a runtime none of the checks knows is "an unknown runtime".
 */
export function runtimeName(scope: RuntimeGlobals = globalThis as RuntimeGlobals): string {
  if ("Bun" in scope) return "Bun";
  // By name, not as `scope.Deno`: the npm build names no Deno API.
  if ("Deno" in scope) return "Deno";
  if (scope.navigator?.userAgent === "Cloudflare-Workers") return "workerd";
  if (scope.process?.versions?.node !== undefined) return "Node";
  if (scope.document !== undefined) return "a browser";
  if (scope.WorkerGlobalScope !== undefined) return "a web worker";
  return "an unknown runtime";
}

/**
 * A call this runtime can never make (a file path without a file system, a
 * package it cannot load): the caller's environment, not the network, so it
 * reaches the caller as it is and is never retried.
 */
export class RuntimeLimitError extends TypeError {}

/** The error text for a file path where the runtime has no file system to read it from. */
export function noFileSystem(field: string, scope?: RuntimeGlobals): string {
  return `Invalid ${field}: a file path needs Deno, Node or Bun (this is ${
    runtimeName(scope)
  }); give a Blob or bytes`;
}
