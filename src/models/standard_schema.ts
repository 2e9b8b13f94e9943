// The Standard Schema interface (version 1), written out as types only: a
// validator of zod, valibot, arktype… implements it, and the library needs
// none of them to accept one.

/**
 * A validator that follows the Standard Schema specification, version 1:
 * zod, valibot, arktype and others implement it under the `~standard` key.
 * {@linkcode HttpResponse.json} accepts one and returns its output type.
 *
 * @typeParam Input The type the validator accepts.
 * @typeParam Output The type of a validated value.
 *
 * @example A hand-written validator
 * ```ts
 * import type { StandardSchemaV1 } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const positive: StandardSchemaV1<unknown, number> = {
 *   "~standard": {
 *     version: 1,
 *     vendor: "example",
 *     validate: (value) =>
 *       typeof value === "number" && value > 0
 *         ? { value }
 *         : { issues: [{ message: "Expected a positive number" }] },
 *   },
 * };
 * assert.deepEqual(positive["~standard"].validate(3), { value: 3 });
 * ```
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The validator's properties. */
  readonly "~standard": {
    /** The version of the specification: 1. */
    readonly version: 1;
    /** The library the validator comes from (`"zod"`, `"valibot"`). */
    readonly vendor: string;
    /** Validates a value; an asynchronous validator returns a promise. */
    readonly validate: (
      value: unknown,
    ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    /** The input and output types, for inference only (never present at run time). */
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/**
 * What a {@linkcode StandardSchemaV1} validator returns: the validated value,
 * or the issues found.
 *
 * @typeParam Output The type of a validated value.
 *
 * @example Tell success from failure
 * ```ts
 * import type { StandardSchemaResult } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const result: StandardSchemaResult<number> = { issues: [{ message: "Required", path: ["id"] }] };
 * assert.equal(result.issues?.length, 1);
 * ```
 */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardSchemaIssue[] };

/**
 * One problem a {@linkcode StandardSchemaV1} validator found: what is wrong,
 * and where (a path of keys, each a key or a `{ key }` segment).
 *
 * @example An issue at `items[0].id`
 * ```ts
 * import type { StandardSchemaIssue } from "@fetchline/fetchline";
 *
 * const issue: StandardSchemaIssue = { message: "Expected a number", path: ["items", 0, { key: "id" }] };
 * ```
 */
export interface StandardSchemaIssue {
  /** What is wrong. */
  readonly message: string;
  /** Where, from the root of the value. */
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}
