// What a traffic control counts by: each origin (`scope: "origin"`, the
// default) or every call through it (`scope: "client"`, named by `key`).
// One check for every control that takes a scope.

import { describeType } from "../models/_validate.ts";

/**
 * The bucket name of a control with `scope` and `key`: `undefined` per
 * origin (each call's origin names it), else `key` (default `"client"`).
 * A scope other than `"origin"` or `"client"`, or a `key` that is not a
 * non-empty string with scope `"client"`, is a TypeError naming it.
 */
export function scopeKey(scope: unknown, key?: unknown): string | undefined {
  if (scope !== "origin" && scope !== "client") {
    throw new TypeError(
      `Invalid scope: expected "origin" or "client", got ${
        typeof scope === "string" ? JSON.stringify(scope) : describeType(scope)
      }`,
    );
  }
  if (key !== undefined && (typeof key !== "string" || key === "" || scope !== "client")) {
    throw new TypeError(
      `Invalid key: expected a non-empty string with scope "client", got ${
        typeof key === "string" ? `a string with scope "${scope}"` : describeType(key)
      }`,
    );
  }
  return scope === "client" ? (key as string | undefined) ?? "client" : undefined;
}
