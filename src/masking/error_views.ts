// What the library shows of an exception: its own fields through their
// masked views, and a cause from the runtime (whose message may name the URL
// with its query) as a copy whose texts are masked.

import { MASK, VIEW } from "./views.ts";
import { redactText } from "./url.ts";

type Inspect = (value: unknown, options?: unknown) => string;

const BUILT_IN_ERRORS = [TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError];

/** How many causes deep a view goes; a longer chain ends in `***`. */
const MAX_CAUSES = 8;

/** Exceptions whose cause came from a user's code: its text is never shown. */
const OPAQUE_CAUSES = new WeakSet<Error>();

/**
 * Marks `error`'s cause as a user's error whose text may hold anything (a
 * token step's error may quote the secret it was sent): views show only its
 * class. The cause itself stays on `error`, unchanged.
 */
export function hideCauseText<E extends Error>(error: E): E {
  OPAQUE_CAUSES.add(error);
  return error;
}

/**
 * The masked view of an exception of the library: `name`, `message`,
 * `stack`, its own fields (`request`, `response`…, each shown through its
 * own view) and `cause` (see {@linkcode maskedCause}).
 */
export function errorView(error: Error): Record<string, unknown> {
  const view: Record<string, unknown> = {
    name: error.name,
    message: error.message,
    stack: error.stack,
  };
  for (const [key, value] of Object.entries(error)) view[key] = maskedCause(value, 0);
  if (error.cause !== undefined) {
    view.cause = OPAQUE_CAUSES.has(error) ? opaqueCause(error.cause) : maskedCause(error.cause, 0);
  }
  return view;
}

/**
 * A user's error as a view shows it: its class, and `***` for its message.
 * One of the library's own keeps its masked fields (its request, say), but
 * not its message, nor anything of its causes but their classes: its cause
 * may be the user's text again (a JSON parser quoting a body).
 */
function opaqueCause(cause: unknown, depth = 0): unknown {
  if (!(cause instanceof Error) || depth >= MAX_CAUSES) return MASK;
  const stack = `${cause.name}: ${MASK}`;
  if (VIEW in cause) {
    const view: Record<string, unknown> = { ...errorView(cause), message: MASK, stack };
    if (cause.cause !== undefined) view.cause = opaqueCause(cause.cause, depth + 1);
    return view;
  }
  const copy = new Error(MASK);
  const hidden = (key: string, value: unknown) =>
    Object.defineProperty(copy, key, { value, writable: true, configurable: true });
  hidden("name", cause.name);
  hidden("stack", stack);
  hidden("toJSON", () => ({ name: cause.name, message: MASK }));
  return copy;
}

/**
 * A value an exception carries, as a view may show it: one of the library's
 * own (it masks itself) as it is; a runtime's error as a copy of the same
 * class name whose message, stack and fields are masked with
 * {@linkcode redactText}, its causes too, and whose `toJSON()` gives
 * `{ name, message, ...fields, cause }`; a string masked; any other object as
 * its `String()`.
 */
export function maskedCause(value: unknown, depth: number): unknown {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) {
    return typeof value === "string" ? redactText(value) : value;
  }
  if (VIEW in value) return value;
  if (depth >= MAX_CAUSES) return MASK;
  if (!(value instanceof Error)) return redactText(describe(value));
  // The same built-in class, so that console.log() names it as the original.
  const Class = BUILT_IN_ERRORS.find((Built) => value.constructor === Built) ?? Error;
  const copy = new Class(redactText(value.message));
  const fields: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null || typeof field !== "object" && typeof field !== "function") {
      fields[key] = maskedCause(field, depth + 1);
    }
  }
  Object.assign(copy, fields);
  const hidden = (key: string, field: unknown) =>
    Object.defineProperty(copy, key, { value: field, writable: true, configurable: true });
  hidden("name", value.name);
  hidden("stack", redactText(value.stack ?? `${value.name}: ${copy.message}`));
  if (value.cause !== undefined) hidden("cause", maskedCause(value.cause, depth + 1));
  hidden(
    "toJSON",
    () => ({ name: value.name, message: copy.message, ...fields, cause: copy.cause }),
  );
  return copy;
}

/**
 * Masks, in place, the message, stack and string fields of every runtime
 * error down the cause chain of `cause` (Deno's fetch names the URL, query
 * included, in its message; Bun's in a `path` field), so that what walks the
 * chain itself (pino's error serializer, `JSON.stringify`, an uncaught
 * error's report) finds no secret either. The errors stay the causes, with
 * their class and fields; one that cannot be changed is left.
 */
export function maskCauseTexts(cause: unknown): void {
  for (let error = cause, depth = 0; error instanceof Error && depth < MAX_CAUSES; depth++) {
    if (!(VIEW in error)) {
      try {
        const message = redactText(error.message);
        if (message !== error.message) error.message = message;
        const { stack } = error;
        if (typeof stack === "string" && redactText(stack) !== stack) {
          error.stack = redactText(stack);
        }
        maskStringFields(error);
      } catch {
        // A frozen error, or one whose message is a getter: its view is masked still.
      }
    }
    error = error.cause;
  }
}

/** Masks the URLs in `error`'s own enumerable string fields, each that can be changed. */
function maskStringFields(error: Error): void {
  const fields = error as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(error)) {
    if (typeof value !== "string") continue;
    const masked = redactText(value);
    if (masked === value) continue;
    try {
      fields[key] = masked;
    } catch {
      // A read-only field: the error's view is masked still.
    }
  }
}

function describe(value: object): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * Makes Deno's and Node's `console.log()` of an exception class show its
 * stack (whose message is masked already) followed by the masked fields of
 * {@linkcode errorView}, and registers that view for `toJSON()`.
 */
export function defineErrorInspect(target: { prototype: Error }): void {
  const details = (error: Error) => {
    const { name: _, message: __, stack: ___, ...rest } = errorView(error);
    return rest;
  };
  const show = (error: Error, inspect: Inspect, options: unknown) => {
    const rest = details(error);
    const stack = error.stack ?? `${error.name}: ${error.message}`;
    return Object.keys(rest).length === 0 ? stack : `${stack} ${inspect(rest, options)}`;
  };
  Object.defineProperty(target.prototype, VIEW, {
    value(this: Error) {
      return errorView(this);
    },
  });
  Object.defineProperty(target.prototype, Symbol.for("Deno.customInspect"), {
    value(this: Error, inspect: Inspect, options: unknown): string {
      return show(this, inspect, options);
    },
  });
  Object.defineProperty(target.prototype, Symbol.for("nodejs.util.inspect.custom"), {
    value(this: Error, _depth: number, options: unknown, inspect: Inspect): string {
      return show(this, inspect, options);
    },
  });
}
