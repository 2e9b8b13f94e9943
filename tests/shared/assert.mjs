// The assertions the shared suite uses, on every runtime it runs on. Our own,
// because node:assert exists on Node, Deno and Bun but not in a browser page,
// nor in workerd without the nodejs_compat flag. Each failure throws an
// AssertionError whose message says what was expected.

/** The error every failed assertion throws. */
export class AssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = "AssertionError";
  }
}

function show(value) {
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof Uint8Array) return `Uint8Array(${value.length}) [${value.slice(0, 16)}]`;
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    // A cycle or a BigInt: the plain conversion below is enough.
  }
  return String(value);
}

function fail(message, detail) {
  throw new AssertionError(message === undefined ? detail : `${message}: ${detail}`);
}

/** Passes when `actual` and `expected` are the same value (Object.is). */
export function equal(actual, expected, message) {
  if (!Object.is(actual, expected)) {
    fail(message, `expected ${show(expected)}, got ${show(actual)}`);
  }
}

function same(a, b) {
  if (Object.is(a, b)) return true;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) {
      return false;
    }
    return a.every((byte, index) => byte === b[index]);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!(Array.isArray(a) && Array.isArray(b)) || a.length !== b.length) return false;
    return a.every((item, index) => same(item, b[index]));
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
}

/** Passes when `actual` and `expected` have the same structure: plain objects, arrays, Uint8Array. */
export function deepEqual(actual, expected, message) {
  if (!same(actual, expected)) fail(message, `expected ${show(expected)}, got ${show(actual)}`);
}

/** Passes when `value` is truthy. */
export function ok(value, message) {
  if (!value) fail(message, `expected a truthy value, got ${show(value)}`);
}

/** Passes when `string` is a string that `regexp` matches. */
export function match(string, regexp, message) {
  if (typeof string !== "string" || !regexp.test(string)) {
    fail(message, `expected ${show(string)} to match ${regexp}`);
  }
}

function check(error, ErrorClass, regexp) {
  if (!(error instanceof ErrorClass)) {
    fail(undefined, `expected ${ErrorClass.name}, got ${error?.name}: ${error?.message ?? error}`);
  }
  if (regexp !== undefined && !regexp.test(error.message)) {
    fail(
      undefined,
      `expected the ${ErrorClass.name}'s message to match ${regexp}: ${error.message}`,
    );
  }
  return error;
}

/**
 * Passes when the promise (or the promise the function returns) rejects with
 * an instance of `ErrorClass` whose message matches `regexp`, if given.
 * Resolves to the error.
 */
export async function rejects(promiseOrAsyncFn, ErrorClass, regexp) {
  try {
    await (typeof promiseOrAsyncFn === "function" ? promiseOrAsyncFn() : promiseOrAsyncFn);
  } catch (error) {
    return check(error, ErrorClass, regexp);
  }
  return fail(undefined, `expected ${ErrorClass.name}, got no error`);
}

/** Passes when `fn` throws an instance of `ErrorClass` whose message matches `regexp`, if given. */
export function throws(fn, ErrorClass, regexp) {
  try {
    fn();
  } catch (error) {
    return check(error, ErrorClass, regexp);
  }
  return fail(undefined, `expected ${ErrorClass.name}, got no error`);
}
