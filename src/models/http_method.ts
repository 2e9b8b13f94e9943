/**
 * The HTTP methods the client sends. A member is its own value
 * (`HttpMethod.GET === "GET"`).
 *
 * @example Use a member or its string
 * ```ts
 * import { HttpMethod, HttpRequest } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * assert.equal(HttpMethod.POST, "POST");
 * assert.equal(new HttpRequest("post", "http://127.0.0.1/").method, HttpMethod.POST);
 * ```
 */
export const HttpMethod = {
  GET: "GET",
  POST: "POST",
  PUT: "PUT",
  PATCH: "PATCH",
  DELETE: "DELETE",
  HEAD: "HEAD",
  OPTIONS: "OPTIONS",
} as const;

/**
 * One of the method names: `"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS"`.
 *
 * @example Type a method
 * ```ts
 * import type { HttpMethod } from "@fetchline/fetchline";
 *
 * const method: HttpMethod = "DELETE";
 * ```
 */
export type HttpMethod = typeof HttpMethod[keyof typeof HttpMethod];

const METHODS: ReadonlySet<string> = new Set(Object.values(HttpMethod));

/**
 * Reads a method name in any letter case; anything else is a TypeError.
 *
 * @param value The name given by the user.
 * @returns The upper-case member.
 */
export function parseMethod(value: unknown): HttpMethod {
  const upper = typeof value === "string" ? value.toUpperCase() : undefined;
  if (upper === undefined || !METHODS.has(upper)) {
    const shown = typeof value === "string" ? JSON.stringify(value) : typeof value;
    throw new TypeError(
      `Invalid method: expected one of ${[...METHODS].join(", ")}, got ${shown}`,
    );
  }
  return upper as HttpMethod;
}
