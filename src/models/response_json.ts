// The body of a response as JSON: parsed, and checked against a Standard
// Schema validator when one is given.

import { describeCall } from "../errors.ts";
import { hideCauseText } from "../masking/error_views.ts";
import { ResponseParseException } from "../response_exceptions.ts";
import type { HttpResponse } from "./response.ts";
import type { StandardSchemaIssue, StandardSchemaV1 } from "./standard_schema.ts";
import { describeType } from "./_validate.ts";

/** How many issue paths a message names; the rest are counted. */
const SHOWN_PATHS = 3;

/** `<METHOD> <URL> (status <n>)`, the URL masked: where every parse message ends. */
function where(response: HttpResponse): string {
  return `${describeCall(response.request, response.url)} (status ${response.statusCode})`;
}

/** The body parsed as JSON, or a {@linkcode ResponseParseException} carrying the response. */
export function parseJson(response: HttpResponse): unknown {
  const text = response.text;
  try {
    return JSON.parse(text);
  } catch (cause) {
    // The parser's message quotes the body (V8: `"token=…" is not valid JSON`),
    // which no view shows: the cause is shown by its class only.
    throw hideCauseText(
      new ResponseParseException(`Response body is not valid JSON: ${where(response)}`, {
        response,
        cause,
      }),
    );
  }
}

/** `text` parsed as JSON, or `undefined` when it is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The body parsed as JSON and validated by `schema`: the validator's output,
 * or a {@linkcode ResponseParseException} carrying its issues and the
 * response. The body is in memory, so validation is synchronous: a
 * validator that returns a promise (an async refinement) is a `TypeError`
 * naming its vendor, rather than a promise the caller might not await.
 */
export function validateJson(response: HttpResponse, schema: unknown): unknown {
  const props = (schema as Partial<StandardSchemaV1> | null | undefined)?.["~standard"];
  if (props?.version !== 1 || typeof props.validate !== "function") {
    throw new TypeError(
      `Invalid schema: expected a Standard Schema validator (version 1 under "~standard"), got ${
        describeType(schema)
      }`,
    );
  }
  const result = props.validate(parseJson(response));
  if (typeof (result as Partial<PromiseLike<unknown>>).then === "function") {
    // Nobody awaits it: its rejection must not go unhandled.
    (result as PromiseLike<unknown>).then(undefined, () => {});
    throw new TypeError(
      `Invalid schema: the ${props.vendor} validator is asynchronous, and json(schema) validates synchronously; validate response.json() with the validator's own async call instead`,
    );
  }
  const { issues, value } = result as { issues?: readonly StandardSchemaIssue[]; value?: unknown };
  if (issues === undefined) return value;
  throw new ResponseParseException(
    `Response body does not match the schema (${describeIssues(issues)}): ${where(response)}`,
    { response, issues },
  );
}

/** `2 issues: user.email, items[0].id`: the count, and the first paths (never the values). */
function describeIssues(issues: readonly StandardSchemaIssue[]): string {
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
