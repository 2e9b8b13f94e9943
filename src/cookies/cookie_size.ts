// The size of a cookie a client keeps, as browsers bound it (RFC 6265bis
// §5.6, Chromium, Firefox): a Set-Cookie line whose name and value are too
// large is ignored whole, and an attribute whose value is too large is
// ignored alone. A larger cookie would go with every later request to its
// host, and servers refuse a request whose Cookie header is so large.

import { utf8Length } from "../http/raw_body.ts";

/** The most bytes (UTF-8) of a cookie's name and value together: a larger cookie is ignored. */
export const MAX_COOKIE_BYTES = 4096;

/** The most bytes (UTF-8) of an attribute's value: a larger attribute is ignored. */
export const MAX_ATTRIBUTE_BYTES = 1024;

/**
 * The Set-Cookie `line` a jar is given: `undefined` when the cookie's name
 * and value together pass {@linkcode MAX_COOKIE_BYTES}; else the line
 * without the attributes (`; Name=value`) whose value passes
 * {@linkcode MAX_ATTRIBUTE_BYTES}, which the cookie is then kept without (an
 * over-long `Path` gives the default path, as in a browser).
 */
export function boundedSetCookie(line: string): string | undefined {
  // A line this short (at most 3 bytes a character) holds nothing too large.
  if (line.length * 3 <= MAX_ATTRIBUTE_BYTES) return line;
  const parts = line.split(";");
  const pair = parts[0] as string;
  const equals = pair.indexOf("=");
  const name = equals === -1 ? "" : pair.slice(0, equals);
  const value = equals === -1 ? pair : pair.slice(equals + 1);
  if (utf8Length(name.trim()) + utf8Length(value.trim()) > MAX_COOKIE_BYTES) return undefined;
  const attributes = parts.slice(1).filter((attribute) => {
    const at = attribute.indexOf("=");
    return at === -1 || utf8Length(attribute.slice(at + 1).trim()) <= MAX_ATTRIBUTE_BYTES;
  });
  return attributes.length === parts.length - 1 ? line : [pair, ...attributes].join(";");
}
