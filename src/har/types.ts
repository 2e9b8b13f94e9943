// The HTTP Archive format, version 1.2 (http://www.softwareishard.com/blog/har-12-spec/),
// as the types of what the recorder writes and MockTransport.fromHar reads:
// the fields the format names, and the custom ones (a leading underscore,
// as the format allows) that fetchline and browsers add.

/** A name and a value: a header, a query parameter. */
export interface HarNameValue {
  /** The name, as sent or received. */
  name: string;
  /** The value (`***` when masked). */
  value: string;
  /** A comment. */
  comment?: string;
}

/** A cookie of a request's `Cookie` header or of a response's `Set-Cookie`. */
export interface HarCookie {
  /** The cookie's name. */
  name: string;
  /** The cookie's value (`***` when masked). */
  value: string;
  /** Its `Path`. */
  path?: string;
  /** Its `Domain`. */
  domain?: string;
  /** When it expires (ISO 8601). */
  expires?: string;
  /** Its `HttpOnly` flag. */
  httpOnly?: boolean;
  /** Its `Secure` flag. */
  secure?: boolean;
  /** A comment. */
  comment?: string;
}

/** A form field, or a file, of a posted body. */
export interface HarParam {
  /** The field's name. */
  name: string;
  /** The field's value. */
  value?: string;
  /** The file's name, for a file. */
  fileName?: string;
  /** The file's Content-Type, for a file. */
  contentType?: string;
  /** A comment. */
  comment?: string;
}

/** A request's body. */
export interface HarPostData {
  /** Its Content-Type. */
  mimeType: string;
  /** Its form fields and files, for a form or multipart body. */
  params?: HarParam[];
  /** Its text (base64 when `_encoding` says so). */
  text?: string;
  /** A comment: why the body is not (all) there. */
  comment?: string;
  /** `"base64"` for a binary body (fetchline's). */
  _encoding?: string;
  /** Further custom fields. */
  [custom: `_${string}`]: unknown;
}

/** The request of an entry. */
export interface HarRequest {
  /** The method. */
  method: string;
  /** The absolute URL, query included (masked). */
  url: string;
  /** `HTTP/1.1`, `h2`… or `unknown`. */
  httpVersion: string;
  /** Its cookies. */
  cookies: HarCookie[];
  /** Its headers. */
  headers: HarNameValue[];
  /** The URL's query parameters. */
  queryString: HarNameValue[];
  /** Its body, if it had one. */
  postData?: HarPostData;
  /** The size of its head in bytes, `-1` when unknown. */
  headersSize: number;
  /** The size of its body in bytes, `-1` when unknown. */
  bodySize: number;
  /** A comment. */
  comment?: string;
  /** Further custom fields. */
  [custom: `_${string}`]: unknown;
}

/** A response's body. */
export interface HarContent {
  /** The length of the (decoded) body in bytes. */
  size: number;
  /** The bytes saved by compression, when known. */
  compression?: number;
  /** Its Content-Type. */
  mimeType: string;
  /** The body (absent when not recorded), base64 when `encoding` says so. */
  text?: string;
  /** `"base64"` for a binary body. */
  encoding?: string;
  /** A comment. */
  comment?: string;
  /** Further custom fields. */
  [custom: `_${string}`]: unknown;
}

/** The response of an entry. */
export interface HarResponse {
  /** The status; 0 for an exchange that failed. */
  status: number;
  /** The reason phrase. */
  statusText: string;
  /** `HTTP/1.1`, `h2`… or `unknown`. */
  httpVersion: string;
  /** Its cookies. */
  cookies: HarCookie[];
  /** Its headers. */
  headers: HarNameValue[];
  /** Its body. */
  content: HarContent;
  /** Its `Location`, or `""`. */
  redirectURL: string;
  /** The size of its head in bytes, `-1` when unknown. */
  headersSize: number;
  /** The size of its body as received in bytes, `-1` when unknown. */
  bodySize: number;
  /** A comment. */
  comment?: string;
  /** Further custom fields, such as `_error` (why the exchange failed). */
  [custom: `_${string}`]: unknown;
}

/** The phases of an exchange, in ms: `-1` for one the runtime does not tell. */
export interface HarTimings {
  /** Waiting for a connection. */
  blocked?: number;
  /** Resolving the name. */
  dns?: number;
  /** Connecting. */
  connect?: number;
  /** Sending the request. */
  send: number;
  /** Waiting for the response. */
  wait: number;
  /** Receiving the response. */
  receive: number;
  /** The TLS handshake (within `connect`). */
  ssl?: number;
  /** A comment. */
  comment?: string;
}

/** What a cache did for an entry. */
export interface HarCache {
  /** A comment. */
  comment?: string;
  /** Further custom fields, such as `_cacheStatus` (the response's `Cache-Status`). */
  [custom: string]: unknown;
}

/** One exchange. */
export interface HarEntry {
  /** The page it belongs to. */
  pageref?: string;
  /** When it started (ISO 8601). */
  startedDateTime: string;
  /** How long it took in ms: the sum of its known timings. */
  time: number;
  /** Its request. */
  request: HarRequest;
  /** Its response. */
  response: HarResponse;
  /** What a cache did. */
  cache: HarCache;
  /** Its timings. */
  timings: HarTimings;
  /** The server's address. */
  serverIPAddress?: string;
  /** The connection's ID. */
  connection?: string;
  /** A comment. */
  comment?: string;
  /** Further custom fields. */
  [custom: `_${string}`]: unknown;
}

/** A page of a browser's recording. */
export interface HarPage {
  /** When it started loading (ISO 8601). */
  startedDateTime: string;
  /** Its ID, which entries name in `pageref`. */
  id: string;
  /** Its title. */
  title: string;
  /** Its load timings. */
  pageTimings: { onContentLoad?: number; onLoad?: number; comment?: string };
  /** A comment. */
  comment?: string;
}

/** The application that wrote a log. */
export interface HarCreator {
  /** Its name. */
  name: string;
  /** Its version. */
  version: string;
  /** A comment. */
  comment?: string;
}

/** The log of a HAR file. */
export interface HarLog {
  /** `"1.2"`. */
  version: string;
  /** Who wrote it. */
  creator: HarCreator;
  /** The browser that recorded it, if one did. */
  browser?: HarCreator;
  /** Its pages, if any. */
  pages?: HarPage[];
  /** Its exchanges, in the order they started. */
  entries: HarEntry[];
  /** A comment. */
  comment?: string;
}

/**
 * A HAR 1.2 document, as `JSON.parse` gives a `.har` file.
 *
 * @example The smallest HAR
 * ```ts
 * import type { Har } from "@fetchline/fetchline/har";
 *
 * const har: Har = { log: { version: "1.2", creator: { name: "me", version: "1" }, entries: [] } };
 * ```
 */
export interface Har {
  /** The log. */
  log: HarLog;
}
