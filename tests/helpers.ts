// Small helpers shared by the tests.

import assert from "node:assert/strict";
import type { Logger } from "../interfaces.ts";

/** A logger that keeps every line with its level. */
export function recordingLogger(): { logger: Logger; lines: [level: string, message: string][] } {
  const lines: [string, string][] = [];
  const at = (level: string) => (message: string) => void lines.push([level, message]);
  return {
    lines,
    logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
  };
}

/** Asserts that `promise` rejects with exactly `type` and a message matching `message`. */
export async function rejectsWith(
  promise: Promise<unknown>,
  type: new (...args: never[]) => Error,
  message: RegExp,
): Promise<Error> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof type, `expected ${type.name}, got ${caught}`);
  assert.equal((caught as Error).constructor, type);
  assert.match((caught as Error).message, message);
  return caught as Error;
}

/** A retry `sleep` that records the waits instead of sleeping. */
export function recordedWaits(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return { waits, sleep: (ms) => (waits.push(ms), Promise.resolve()) };
}
