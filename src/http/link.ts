// The Link header (RFC 8288): its links, and the target of the one a
// relation names. No models, no I/O.

/** One link of a `Link` header. */
export interface Link {
  /** The target as written between `<` and `>`, not resolved. */
  readonly target: string;
  /** The parameters: names lower-case, values unquoted; the first of a repeated name is kept. */
  readonly params: Readonly<Record<string, string>>;
}

/**
 * The links of a `Link` header value (several headers joined with `", "`
 * are one value), as RFC 8288's appendix B.2 parses them: a comma inside
 * `<…>` or a quoted string does not end a link; a parameter without a
 * value is `""`. What does not parse is skipped up to the next link.
 */
export function parseLinks(value: string): Link[] {
  const links: Link[] = [];
  let at = 0;
  const spaces = () => {
    while (value[at] === " " || value[at] === "\t") at++;
  };
  while (at < value.length) {
    const open = value.indexOf("<", at);
    const close = open === -1 ? -1 : value.indexOf(">", open + 1);
    if (close === -1) break;
    const params: Record<string, string> = Object.create(null);
    at = close + 1;
    for (;;) {
      spaces();
      if (value[at] !== ";") break;
      at++;
      spaces();
      const name = token(value, at, "=;,");
      at += name.length;
      spaces();
      let text = "";
      if (value[at] === "=") {
        at++;
        spaces();
        if (value[at] === '"') [text, at] = quoted(value, at + 1);
        else {
          const raw = token(value, at, ";,");
          at += raw.length;
          text = raw.trim();
        }
      }
      const key = name.trim().toLowerCase();
      if (key !== "" && !(key in params)) params[key] = text;
    }
    links.push({ target: value.slice(open + 1, close).trim(), params });
    at = skipToComma(value, at);
  }
  return links;
}

/**
 * The target of the first link whose `rel` names `relation` (among its
 * space-separated values, in any letter case), resolved against `base` (the
 * URL of the response that carried it): `undefined` when none does.
 *
 * @example
 * ```ts
 * import { linkTarget } from "./link.ts";
 * import assert from "node:assert/strict";
 *
 * const header = '</items?page=1>; rel="prev first", </items?page=3>; rel="next"';
 * assert.equal(linkTarget(header, "next", "http://127.0.0.1/items?page=2"), "http://127.0.0.1/items?page=3");
 * ```
 */
export function linkTarget(
  header: string | undefined,
  relation: string,
  base: string,
): string | undefined {
  if (header === undefined) return undefined;
  for (const { target, params } of parseLinks(header)) {
    const rel = params.rel?.toLowerCase().split(/[ \t]+/);
    const url = rel?.includes(relation) ? URL.parse(target, base) : null;
    if (url) return url.href;
  }
  return undefined;
}

/** The characters of `value` from `at` up to one of `ends` or its end. */
function token(value: string, at: number, ends: string): string {
  let end = at;
  while (end < value.length && !ends.includes(value[end]!)) end++;
  return value.slice(at, end);
}

/** The quoted string's text from `at` (past its opening quote), its escapes undone, and where it ends. */
function quoted(value: string, at: number): [string, number] {
  let text = "";
  while (at < value.length && value[at] !== '"') {
    if (value[at] === "\\") at++;
    text += value[at++] ?? "";
  }
  return [text, at + 1];
}

/** Where the next link starts: past the next comma that is not in a quoted string. */
function skipToComma(value: string, at: number): number {
  while (at < value.length && value[at] !== ",") {
    at = value[at] === '"' ? quoted(value, at + 1)[1] : at + 1;
  }
  return at + 1;
}
