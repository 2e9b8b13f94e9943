// The parts of a HAR entry: a request as the recorder's link sees it (its
// URL, query, headers, cookies and body, masked as the logs mask them), and
// a response's head; the body of a response is bodies.ts's.

import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { appendParams, encodeForm } from "../http/url.ts";
import { basicAuthorization, headerValue } from "../http/headers.ts";
import { rawBodyType, utf8Length } from "../http/raw_body.ts";
import { MASK, maskFormForLog, maskHeaders, maskSentIn, redactUrl } from "../masking/views.ts";
import { type BodyRule, showBytes, type ShownBody, showText } from "./bodies.ts";
import type {
  HarCookie,
  HarNameValue,
  HarParam,
  HarPostData,
  HarRequest,
  HarResponse,
} from "./types.ts";

/** What the recorder writes of a body, and how: {@linkcode BodyRule} and whether bodies are written at all. */
export interface EntryRule extends BodyRule {
  readonly bodies: boolean;
}

/** The HAR version of a protocol the runtime does not tell. */
export const UNKNOWN_VERSION = "unknown";

/**
 * `record` as a HAR list, masked by `rule` (the logs' rule: the sensitive
 * headers and `rule.sensitive`; for a response's, the credentials the call
 * sent, where a header quotes them back).
 */
function headerList(record: Readonly<Record<string, string>>, rule: EntryRule): HarNameValue[] {
  if (!rule.mask) return Object.entries(record).map(([name, value]) => ({ name, value }));
  const { secrets } = rule;
  return Object.entries(maskHeaders(record, rule.sensitive)).map(([name, value]) => ({
    name,
    value: secrets === undefined ? value : maskSentIn(value, secrets),
  }));
}

/** The cookies of a `Cookie` header, their values masked when `mask`. */
function requestCookies(header: string | undefined, mask: boolean): HarCookie[] {
  if (header === undefined) return [];
  return header.split(";").flatMap((pair) => {
    const at = pair.indexOf("=");
    if (at === -1) return [];
    const name = pair.slice(0, at).trim();
    return name === "" ? [] : [{ name, value: mask ? MASK : pair.slice(at + 1).trim() }];
  });
}

/** The cookie of one `Set-Cookie` line, its value masked when `mask`. */
function responseCookie(line: string, mask: boolean): HarCookie | undefined {
  const [pair = "", ...attributes] = line.split(";");
  const at = pair.indexOf("=");
  if (at === -1) return undefined;
  const cookie: HarCookie = {
    name: pair.slice(0, at).trim(),
    value: mask ? MASK : pair.slice(at + 1).trim(),
  };
  for (const attribute of attributes) {
    const [key = "", ...rest] = attribute.split("=");
    const value = rest.join("=").trim();
    switch (key.trim().toLowerCase()) {
      case "path":
        cookie.path = value;
        break;
      case "domain":
        cookie.domain = value;
        break;
      case "expires": {
        const date = new Date(value);
        if (!Number.isNaN(date.getTime())) cookie.expires = date.toISOString();
        break;
      }
      case "httponly":
        cookie.httpOnly = true;
        break;
      case "secure":
        cookie.secure = true;
    }
  }
  return cookie;
}

/** The request's headers as they go on the wire: its own, and the Content-Type and Basic auth the client adds. */
function wireHeaders(request: HttpRequest): Record<string, string> {
  const headers: Record<string, string> = { ...request.headers };
  const type = bodyType(request);
  if (type !== undefined && headerValue(headers, "content-type") === undefined) {
    headers["content-type"] = type;
  }
  if (request.auth !== undefined && headerValue(headers, "authorization") === undefined) {
    headers["authorization"] = basicAuthorization(...request.auth);
  }
  return headers;
}

/** The Content-Type the client gives the body of `request`, if it has one. */
function bodyType(request: HttpRequest): string | undefined {
  if (request.jsonText !== undefined) return "application/json";
  if (request.body !== undefined) return rawBodyType(request.body);
  if (request.files !== undefined) return "multipart/form-data";
  if (request.data !== undefined) return "application/x-www-form-urlencoded";
  return undefined;
}

/** `shown` as a HAR body's fields. */
function shownFields(shown: ShownBody): Partial<HarPostData> {
  return {
    ...(shown.text === undefined ? {} : { text: shown.text }),
    ...(shown.base64 ? { _encoding: "base64" } : {}),
    ...(shown.comment === undefined ? {} : { comment: shown.comment }),
    ...(shown.truncated ? { _truncated: true } : {}),
  };
}

const NOT_RECORDED = "not recorded: the recorder keeps no bodies (bodies: false)";

/** The body of `request` as a HAR `postData`, and its size in bytes (-1 when unknown). */
function postDataOf(
  request: HttpRequest,
  mimeType: string,
  rule: EntryRule,
): { postData?: HarPostData; bodySize: number } {
  const { jsonText, body, data, files } = request;
  if (jsonText !== undefined) return textBody(jsonText, mimeType, rule);
  if (typeof body === "string") return textBody(body, mimeType, rule);
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
    const bytes = body instanceof Uint8Array ? body : new Uint8Array(body);
    const shown = rule.bodies ? showBytes(bytes, mimeType, rule, true) : { comment: NOT_RECORDED };
    return { postData: { mimeType, ...shownFields(shown) }, bodySize: bytes.byteLength };
  }
  if (body !== undefined) {
    // A Blob would need an async read, a stream is the transport's to read once.
    const size = body instanceof Blob ? body.size : -1;
    const comment = `not recorded: a ${body instanceof Blob ? "Blob" : "ReadableStream"} body`;
    return { postData: { mimeType, comment }, bodySize: size };
  }
  const fields = data === undefined ? {} : rule.mask ? maskFormForLog(data, rule.sensitive) : data;
  const params: HarParam[] = Object.entries(fields).map(([name, value]) => ({
    name,
    value: String(value),
  }));
  if (files !== undefined) {
    for (const [name, file] of Object.entries(files)) {
      const fileName = typeof file === "string"
        ? file.split(/[\\/]/).pop() || file
        : file instanceof File
        ? file.name
        : name;
      const contentType = file instanceof Blob && file.type !== "" ? file.type : undefined;
      params.push({ name, fileName, ...(contentType === undefined ? {} : { contentType }) });
    }
    const comment = "a multipart body: its fields and files are in params, its bytes not recorded";
    return { postData: { mimeType, params, comment }, bodySize: -1 };
  }
  if (data === undefined) return { bodySize: 0 };
  const text = encodeForm(fields);
  return {
    postData: {
      mimeType,
      params,
      // Its fields masked already; cut to the limit as any body.
      ...(rule.bodies ? shownFields(showText(text, mimeType, rule)) : { comment: NOT_RECORDED }),
    },
    bodySize: utf8Length(encodeForm(data)),
  };
}

function textBody(text: string, mimeType: string, rule: EntryRule) {
  const shown = rule.bodies ? showText(text, mimeType, rule) : { comment: NOT_RECORDED };
  return { postData: { mimeType, ...shownFields(shown) }, bodySize: utf8Length(text) };
}

/** The URL of `request` as sent (params appended), masked when the rule masks. */
export function shownUrl(request: HttpRequest, rule: EntryRule): string {
  const url = appendParams(request.url, request.params);
  return rule.mask ? redactUrl(url, rule.sensitive) : url;
}

/** `request` as a HAR request, masked by `rule`. */
export function harRequest(request: HttpRequest, rule: EntryRule): HarRequest {
  const url = shownUrl(request, rule);
  const headers = wireHeaders(request);
  const mimeType = headerValue(headers, "content-type") ?? "";
  const queryString: HarNameValue[] = [];
  for (const [name, value] of URL.parse(url)?.searchParams ?? []) queryString.push({ name, value });
  return {
    method: request.method,
    url,
    httpVersion: UNKNOWN_VERSION,
    cookies: requestCookies(headerValue(headers, "cookie"), rule.mask),
    headers: headerList(headers, rule),
    queryString,
    ...postDataOf(request, mimeType, rule),
    headersSize: -1,
  };
}

/** The head of `response` as a HAR response: all but its `content`'s body, written later. */
export function harResponseHead(
  response: HttpResponse,
  rule: EntryRule,
): Omit<HarResponse, "content" | "bodySize"> {
  const headers = headerList(response.headers, rule);
  const lines = response.headerValues("set-cookie");
  if (lines.length > 1) {
    // One header a line, as received (the record joins them).
    const at = headers.findIndex(({ name }) => name === "set-cookie");
    headers.splice(
      at,
      1,
      ...lines.map((line) => ({ name: "set-cookie", value: rule.mask ? MASK : line })),
    );
  }
  const location = response.headers.location;
  return {
    status: response.statusCode,
    statusText: "",
    httpVersion: UNKNOWN_VERSION,
    cookies: lines.flatMap((line) => responseCookie(line, rule.mask) ?? []),
    headers,
    redirectURL: location === undefined
      ? ""
      : rule.mask
      ? redactUrl(location, rule.sensitive)
      : location,
    headersSize: -1,
  };
}
