// The multipart/form-data encoder. A file path is never read here: the
// runtime opens it as a source with its size, read only as the body is sent.
// The bytes are those `FormData` sends through `fetch` (Deno's and undici's
// agree): names and filenames escape `"`, CR and LF as %22, %0D and %0A,
// line breaks in names and string values become CRLF first (not in
// filenames), and a part's Content-Type is its Blob's type or
// application/octet-stream.

import type { FileSource } from "./types.ts";

/** One part's content: text or bytes in memory, or a file read as it is sent. */
export type PartContent = Uint8Array | Blob | FileSource;

/** A form field or a file, in the order they are sent. */
export type FormPart =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly filename: string; readonly content: PartContent };

/** A multipart body: a Blob when every part is one, else a stream read once. */
export interface Multipart {
  readonly body: Blob | ReadableStream<Uint8Array>;
  /** The body's length in bytes, from the parts' sizes (a stream's too). */
  readonly length: number;
  readonly contentType: string;
}

const encoder = new TextEncoder();

const escape = (text: string) =>
  text.replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/"/g, "%22");
const crlf = (text: string) => text.replace(/\r\n|\r|\n/g, "\r\n");

/** A boundary no part can hold by chance: 24 random hex digits. */
function newBoundary(): string {
  const random = crypto.getRandomValues(new Uint8Array(12));
  return `----fetchline-${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * Encodes `parts` as multipart/form-data. The body is a `Blob` when every
 * file is one, else a stream that reads each file source in turn; its
 * length is known either way, from the parts' sizes.
 */
export function encodeMultipart(parts: readonly FormPart[]): Multipart {
  const boundary = newBoundary();
  const chunks: PartContent[] = [];
  let text = "";
  for (const part of parts) {
    text += `--${boundary}\r\nContent-Disposition: form-data; name="${escape(crlf(part.name))}"`;
    if ("value" in part) {
      text += `\r\n\r\n${crlf(part.value)}\r\n`;
      continue;
    }
    const type = part.content instanceof Blob && part.content.type !== ""
      ? part.content.type
      : "application/octet-stream";
    text += `; filename="${escape(part.filename)}"\r\nContent-Type: ${type}\r\n\r\n`;
    chunks.push(encoder.encode(text), part.content);
    text = "\r\n";
  }
  chunks.push(encoder.encode(`${text}--${boundary}--\r\n`));
  const contentType = `multipart/form-data; boundary=${boundary}`;
  const blobs = chunks.every((chunk) => chunk instanceof Blob || chunk instanceof Uint8Array);
  let length = 0;
  for (const chunk of chunks) length += chunk instanceof Uint8Array ? chunk.byteLength : chunk.size;
  const blob = blobs ? new Blob(chunks as BlobPart[]) : undefined;
  // A Blob that came out short is streamed part by part instead: Bun copies
  // the Blob of a file (`Bun.file()`) into another Blob as empty.
  return {
    body: blob?.size === length ? blob : concatenated(chunks),
    length,
    contentType,
  };
}

/**
 * The chunks one after another as a stream, each source streamed when its
 * turn comes (a file is opened then) and read only as the transport asks;
 * cancelling it cancels the one read.
 */
function concatenated(chunks: readonly PartContent[]): ReadableStream<Uint8Array> {
  let index = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (index < chunks.length) {
        if (reader === undefined) {
          const chunk = chunks[index] as PartContent;
          if (chunk instanceof Uint8Array) {
            index++;
            if (chunk.byteLength > 0) return controller.enqueue(chunk);
            continue;
          }
          reader = chunk.stream().getReader();
        }
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        reader = undefined;
        index++;
      }
      controller.close();
    },
    cancel: (reason) => reader?.cancel(reason),
  }, { highWaterMark: 0 });
}
