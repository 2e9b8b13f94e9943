import type { HttpRequest } from "../models/request.ts";
import { curlCommand } from "./curl_command.ts";

/**
 * Renders a request as a cURL command that replays it: the same method,
 * URL, headers and body bytes the client sends (the JSON text comes from the
 * client's own serializer).
 *
 * Layout: `curl -X '<METHOD>'`, then the headers (`-H 'Name: value'`, and
 * `Content-Type: application/json` once after them for a JSON body unless
 * one is set, and likewise the Content-Type the client sends with a raw
 * `body`), `-u 'user:pass'`, the body (`--data '<JSON>'`, `--data
 * 'k=v&k2=v2'` for a form, `-F 'field=@path'` per file with the form
 * fields as `--form-string 'k=v'`, `--data-raw '<text>'` for a raw body that
 * is text), `--max-time <seconds>` and the quoted URL with its params last,
 * joined by a backslash, a newline and two spaces.
 *
 * Safety: every value is single-quoted, a `'` written as `'"'"'`, so no value
 * can break out into the shell. curl's own syntax cannot reinterpret one
 * either: form fields beside files use `--form-string` (never read as
 * `@file` or `<file`); in `-F` the name is literal up to its first `=` and
 * the file path, or an in-memory file's name, is double-quoted when it holds
 * `;`, `,`, `"`, `\` or white space, so no `;type=`, `;filename=`,
 * `;headers=` or second file can be slipped in; a raw body is given with
 * `--data-raw`, which (unlike `--data-binary`) never reads a file for a
 * leading `@`; the path `-` is written `./-`
 * (not stdin); an empty header value is written `-H 'Name;'` (`-H 'Name:'`
 * would remove the header), a URL with `[ ] { }` gets `--globoff` after the
 * method, and HEAD gets `--head` so curl does not wait for a body. An
 * absolute URL is written in the normalised form the client sends; a
 * relative one as given. Multipart names and text values are written with
 * their line breaks as CRLF, as the client sends them; a path holding `\`
 * gets `;filename=` with the base name the client sends.
 *
 * Limitations: a raw `body` is written out only when it is a string, or
 * bytes (`Uint8Array`, `ArrayBuffer`) that are UTF-8 text, and holds no NUL
 * (no shell argument can). Any other raw body (binary bytes, a `Blob`, a
 * `ReadableStream`, text with NUL) is rendered `--data-binary @-`: curl
 * reads it from standard input, so the command sends the bytes piped into
 * it (`curl … < body.bin`) and never other bytes of its own. File
 * contents are not included (a path is shown, and a Blob,
 * File or Uint8Array without a path is shown by the base name of its file
 * name, which curl would read from the working directory); curl guesses a
 * file part's Content-Type from its extension where the client sends the
 * Blob's type or `application/octet-stream`; curl before 7.81 escapes `"`
 * and `\` in multipart names with a `\` (the client writes `%22`, keeps
 * `\`); header values with characters above U+007F are sent by `fetch` as
 * Latin-1 bytes but by curl as UTF-8; session cookies and TLS settings are
 * not included. Refused, as curl cannot send them: a multipart field name
 * (of `files`, or of `data` beside files) that is empty or holds `=`, and a
 * value holding NUL (no shell argument can).
 *
 * @param request The request.
 * @returns The command.
 * @throws {TypeError} For a value holding NUL, or a multipart field name that
 * is empty or holds `=`, naming the field. (A header HTTP forbids never
 * gets here: {@linkcode HttpRequest} refuses it, naming it, when built.)
 *
 * @example Render a JSON request
 * ```ts
 * import { HttpRequest } from "@fetchline/fetchline";
 * import { toCurl } from "@fetchline/fetchline/utils";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("POST", "https://api.example.com/users", {
 *   jsonData: { name: "O'Brien" },
 *   timeout: 30,
 * });
 * assert.equal(
 *   toCurl(request),
 *   [
 *     "curl -X 'POST'",
 *     "-H 'Content-Type: application/json'",
 *     `--data '{"name": "O'"'"'Brien"}'`,
 *     "--max-time 30.0",
 *     "'https://api.example.com/users'",
 *   ].join(" \\\n  "),
 * );
 * assert.equal(request.toCurl(), toCurl(request));
 * ```
 */
export function toCurl(request: HttpRequest): string {
  return curlCommand(request);
}
