// The cURL command of a request's fields, and the shell quoting: what
// toCurl() and the request's own toCurl() render (both in models/request.ts,
// which imports this module, so it names the fields it reads itself).

import { appendParams, encodeForm, isAbsoluteUrl } from "../http/url.ts";
import type { FileValue, FormValue, QueryValue } from "../http/url.ts";
import { headerValue, trimHeaderValue } from "../http/headers.ts";
import { rawBodyType, type RequestBody } from "../http/raw_body.ts";

/**
 * What a request's command is made of: the fields of an HttpRequest it
 * reads (the request passes itself, so the compiler holds the two alike),
 * and its JSON body as the client sends it.
 */
export interface CurlFields {
  readonly method: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly params?: Readonly<Record<string, QueryValue>> | undefined;
  readonly data?: Readonly<Record<string, FormValue>> | undefined;
  readonly files?: Readonly<Record<string, FileValue>> | undefined;
  readonly body?: RequestBody | undefined;
  readonly timeout?: number | null | undefined;
  readonly auth?: readonly [username: string, password: string] | undefined;
  /** The JSON text of `jsonData`, from the client's serializer. */
  readonly jsonText?: string | undefined;
}

const SEPARATOR = " \\\n  ";

/** The command of `request` (see `toCurl` in models/request.ts for its layout and limits). */
export function curlCommand(request: CurlFields): string {
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

function bodyArgs(request: CurlFields): string[] {
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
function bodyText(body: RequestBody): string | undefined {
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

function urlOf(request: CurlFields): string {
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
