import type { HttpRequest } from "../models/request.ts";
import type { FileValue } from "../models/request_fields.ts";
import { encodeForm } from "../http/form.ts";
import { appendParams, isAbsoluteUrl } from "../http/url.ts";
import { headerValue, trimHeaderValue } from "../http/headers.ts";
import { rawBodyType } from "../http/raw_body.ts";

const SEPARATOR = " \\\n  ";

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
  const url = urlOf(request);
  const args = [`curl -X ${shellQuote(request.method)}`];
  if (/[[\]{}]/.test(url)) args.push("--globoff");
  if (request.method === "HEAD") args.push("--head");
  // Already checked: an HttpRequest refuses a header HTTP forbids when it is built.
  const headers = request.headers ?? {};
  for (const [name, value] of Object.entries(headers)) args.push(headerArg(name, value));
  const type = request.jsonText !== undefined
    ? "application/json"
    : request.body !== undefined
    ? rawBodyType(request.body)
    : undefined;
  // curl would send its own Content-Type (a form's) where the client sends this one.
  if (type !== undefined && headerValue(headers, "Content-Type") === undefined) {
    args.push(headerArg("Content-Type", type));
  }
  if (request.auth !== undefined) {
    args.push(`-u ${shellQuote(`${request.auth[0]}:${request.auth[1]}`)}`);
  }
  args.push(...bodyArgs(request));
  // A request without a timeout of its own (the client's, or none: `null`) has no --max-time.
  if (typeof request.timeout === "number") args.push(`--max-time ${seconds(request.timeout)}`);
  // A (relative) URL starting with `-` would be read as an option.
  args.push(url.startsWith("-") ? `--url ${shellQuote(url)}` : shellQuote(url));
  return args.join(SEPARATOR);
}

/**
 * Quotes `value` for a POSIX shell: single quotes, with each `'` written
 * as `'"'"'`. A NUL cannot be passed to a shell and is refused.
 *
 * @param value The text to quote.
 * @returns The quoted word.
 */
export function shellQuote(value: string): string {
  if (value.includes("\0")) {
    throw new TypeError("Cannot render a value holding NUL as a shell argument");
  }
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}

function headerArg(name: string, value: string): string {
  const trimmed = trimHeaderValue(value);
  return `-H ${shellQuote(trimmed === "" ? `${name};` : `${name}: ${trimmed}`)}`;
}

function bodyArgs(request: HttpRequest): string[] {
  if (request.jsonText !== undefined) return [`--data ${shellQuote(request.jsonText)}`];
  if (request.body !== undefined) {
    const text = bodyText(request.body);
    return [text === undefined ? "--data-binary @-" : `--data-raw ${shellQuote(text)}`];
  }
  if (request.files === undefined) {
    return request.data === undefined ? [] : [`--data ${shellQuote(encodeForm(request.data))}`];
  }
  const args = Object.entries(request.data ?? {}).map(([key, value]) =>
    `--form-string ${shellQuote(`${formName("data", key)}=${crlf(String(value))}`)}`
  );
  for (const [field, value] of Object.entries(request.files)) {
    args.push(`-F ${shellQuote(`${formName("files", field)}=@${fileArg(field, value)}`)}`);
  }
  return args;
}

/**
 * A raw body as the text of a shell argument: a string, or bytes that are
 * UTF-8 text (a BOM kept, as it is sent), without NUL; `undefined` for any
 * other body, which curl then reads from standard input.
 */
function bodyText(body: NonNullable<HttpRequest["body"]>): string | undefined {
  let text: string;
  if (typeof body === "string") text = body;
  else if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
    } catch {
      return undefined;
    }
  } else return undefined;
  return text.includes("\0") ? undefined : text;
}

/**
 * A field name as `-F` and `--form-string` read it: literally, up to the
 * first `=`. So a name holding `=` would shift the split (`x=</etc/passwd`
 * uploads that file) and an empty one sends a part with no name: both are
 * refused. Line breaks become CRLF, as the client's multipart encoder sends them.
 */
function formName(field: "data" | "files", name: string): string {
  if (name === "" || name.includes("=")) {
    throw new TypeError(
      `Cannot render ${field}[${
        JSON.stringify(name)
      }] as a curl form field: curl ends a name at its first "=" and sends none for an empty one`,
    );
  }
  return crlf(name);
}

function crlf(text: string): string {
  return text.replace(/\r\n|\r|\n/g, "\r\n");
}

/**
 * The file part of `-F name=@…`. curl reads `-` as stdin, and names the part
 * after the last `/` only, where the client also cuts at `\`: then the
 * client's file name is given as `;filename=`.
 */
function fileArg(field: string, value: FileValue): string {
  if (typeof value !== "string") {
    return formWord(safeBaseName(value instanceof File ? value.name : field));
  }
  const path = formWord(value === "-" ? "./-" : value);
  if (!value.includes("\\")) return path;
  return `${path};filename="${escapeQuoted(value.split(/[\\/]/).pop() || value)}"`;
}

/**
 * The base name of an in-memory file's name, so a replay reads a file of
 * the working directory and never a path the name spells (`/home/u/.ssh/…`);
 * `./` keeps `-` (stdin) and a leading `-` from being special.
 */
function safeBaseName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  return base === "" || base.startsWith("-") || base === "." || base === ".."
    ? `./${base || "file"}`
    : base;
}

/**
 * A file name as `-F` reads it: double-quoted when curl would parse `;`,
 * `,`, `"` or `\`, or strip leading and trailing white space.
 */
function formWord(name: string): string {
  return /[;,"\\ \t\n\v\f\r]/.test(name) ? `"${escapeQuoted(name)}"` : name;
}

function escapeQuoted(text: string): string {
  return text.replace(/["\\]/g, "\\$&");
}

function urlOf(request: HttpRequest): string {
  const url = appendParams(request.url, request.params);
  if (!isAbsoluteUrl(url)) return url;
  const parsed = URL.parse(url);
  if (parsed === null) return url;
  parsed.hash = "";
  return parsed.href;
}

function seconds(value: number): string {
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}
