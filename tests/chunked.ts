// Bodies cut into chunks at chosen places, and small line limits, for the
// streaming parsers' tests.

import fc from "fast-check";
import type { LineLimit } from "../src/http/text_stream.ts";

const encoder = new TextEncoder();

/** `bytes` cut at each of `cuts` (any order, repeats allowed: they give empty chunks). */
export function cutAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const ends = [...cuts].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const end of [...ends, bytes.length]) {
    chunks.push(bytes.slice(start, end));
    start = end;
  }
  return chunks;
}

/** A stream of `chunks`, or of `text`'s UTF-8 bytes one byte a chunk. */
export function bodyOf(source: string | readonly Uint8Array[]): ReadableStream<Uint8Array> {
  if (typeof source !== "string") return ReadableStream.from(source);
  const bytes = encoder.encode(source);
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next === bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(next, ++next));
    },
  });
}

/** Text and cut positions into its UTF-8 bytes, from an alphabet rich in the format's edge cases. */
export function textAndCuts(
  alphabet: readonly string[],
): fc.Arbitrary<{ bytes: Uint8Array; cuts: number[] }> {
  return fc
    .array(fc.constantFrom(...alphabet), { maxLength: 60 })
    .map((parts) => encoder.encode(parts.join("")))
    .chain((bytes) =>
      fc.record({
        bytes: fc.constant(bytes),
        cuts: fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }),
      })
    );
}

/**
 * A limit of `max` characters for the parsers, whose error (a RangeError, so
 * that a test tells it from the library's) names what grew past it.
 */
export function limitOf(max: number): LineLimit {
  return { max, tooLong: (what) => new RangeError(`${what} past ${max}`) };
}
