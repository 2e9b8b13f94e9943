// File paths in `files` on the runtimes with a file system (Node, Deno and
// Bun: each reads the path through its own API, Bun through `Bun.file()`),
// against the fixture tests/runtimes/checks.mjs describes. The file sent is
// this module itself, so no runtime needs to write one.

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

function check(condition, message) {
  if (!condition) throw new Error(message);
}

/** Posts `files` with a client on `url`, closed at the end; the call's promise. */
async function post(lib, url, files) {
  const http = lib.createClient(url);
  try {
    return await http.post("/upload", { files });
  } finally {
    await http.close();
  }
}

/** The checks of file paths, on a runtime that has a file system. */
export function fileChecks(lib, { url }) {
  const path = fileURLToPath(import.meta.url);
  return {
    "a file path in files is sent from disk, with its length": async () => {
      const text = await readFile(path, "utf8");
      const sent = (await post(lib, url, { doc: path })).json();
      check(sent.body.includes('filename="files.mjs"'), "no filename in the part");
      check(sent.body.includes(text), "the file's bytes are not in the body");
      // Deno's fetch sends a stream chunked; where a length is sent, it is the body's.
      const length = new TextEncoder().encode(sent.body).byteLength;
      const header = sent.headers["content-length"];
      const chunked = sent.headers["transfer-encoding"] === "chunked";
      check(chunked || header === String(length), `content-length ${header}, ${length} bytes`);
    },
    "a missing file fails the call, naming the field": async () => {
      try {
        await post(lib, url, { doc: `${path}.missing` });
      } catch (error) {
        check(error instanceof lib.HttpClientException, `${error?.name}: ${error?.message}`);
        check(error.message.includes("files.doc"), error.message);
        return;
      }
      throw new Error("the call succeeded");
    },
  };
}

/** On Bun: a `Bun.file()` Blob in `files` is sent whole (Bun copies it into another Blob as empty). */
export function bunFileChecks(lib, { url }) {
  const path = fileURLToPath(import.meta.url);
  return {
    "a Bun.file() Blob in files is sent whole": async () => {
      const text = await readFile(path, "utf8");
      const sent = (await post(lib, url, { doc: globalThis.Bun.file(path) })).json();
      check(sent.body.includes(text), "the file's bytes are not in the body");
    },
  };
}
