// The parts of json() and json(schema) below the response: a Standard Schema
// validator checked and run synchronously, its issues described. The
// response turns a failure into its ResponseParseException (response.ts).

import type { StandardSchemaIssue, StandardSchemaV1 } from "./standard_schema.ts";
import { describeType } from "./_validate.ts";

/** How many issue paths a message names; the rest are counted. */
const SHOWN_PATHS = 3;

/** `text` parsed as JSON, or `undefined` when it is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The validator of `schema`, a Standard Schema (version 1 under
 * `"~standard"`), or a `TypeError` naming what `schema` is.
 */
export function schemaValidator(schema: unknown): StandardSchemaV1["~standard"] {
  const props = (schema as Partial<StandardSchemaV1> | null | undefined)?.["~standard"];
  if (props?.version !== 1 || typeof props.validate !== "function") {
    throw new TypeError(
      `Invalid schema: expected a Standard Schema validator (version 1 under "~standard"), got ${
        describeType(schema)
      }`,
    );
  }
  return props;
}

/**
 * `value` validated by `validator`: its output, or its issues. The body is
 * in memory, so validation is synchronous: a validator that returns a
 * promise (an async refinement) is a `TypeError` naming its vendor, rather
 * than a promise the caller might not await.
 */
export function validateSync(
  validator: StandardSchemaV1["~standard"],
  value: unknown,
): { issues?: readonly StandardSchemaIssue[]; value?: unknown } {
  const result = validator.validate(value);
  if (typeof (result as Partial<PromiseLike<unknown>>).then === "function") {
    // Nobody awaits it: its rejection must not go unhandled.
    (result as PromiseLike<unknown>).then(undefined, () => {});
    throw new TypeError(
      `Invalid schema: the ${validator.vendor} validator is asynchronous, and json(schema) validates synchronously; validate response.json() with the validator's own async call instead`,
    );
  }
  return result as { issues?: readonly StandardSchemaIssue[]; value?: unknown };
}

/** `2 issues: user.email, items[0].id`: the count, and the first paths (never the values). */
export function describeIssues(issues: readonly StandardSchemaIssue[]): string {
  const paths = issues.slice(0, SHOWN_PATHS).map((issue) => pathOf(issue.path ?? []));
  const more = issues.length > SHOWN_PATHS ? `, ${issues.length - SHOWN_PATHS} more` : "";
  const count = issues.length === 1 ? "1 issue" : `${issues.length} issues`;
  return `${count}: ${paths.join(", ")}${more}`;
}

/** A path as code would read it: `items[0].id`, `["odd key"]`; the root is `(root)`. */
function pathOf(path: readonly (PropertyKey | { readonly key: PropertyKey })[]): string {
  let text = "";
  for (const segment of path) {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment;
    if (typeof key === "number") text += `[${key}]`;
    else if (typeof key === "symbol") text += `[${String(key)}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) text += text === "" ? key : `.${key}`;
    else text += `[${JSON.stringify(key)}]`;
  }
  return text === "" ? "(root)" : text;
}
