// Excluded paths: exact pathnames, and fnmatch-style patterns where `*` is
// any run of characters (`/` included) and `?` is one character.

/** A predicate telling whether a request URL's pathname is excluded. */
export function pathExclusion(
  excludedPaths: Iterable<string> = [],
  excludedPathPatterns: Iterable<string> = [],
): (url: string) => boolean {
  const exact = new Set(excludedPaths);
  const patterns = [...excludedPathPatterns].map(globToRegExp);
  if (exact.size === 0 && patterns.length === 0) return () => false;
  return (url) => {
    const path = URL.parse(url, "http://relative.invalid")?.pathname ?? url;
    return exact.has(path) || patterns.some((pattern) => pattern.test(path));
  };
}

function globToRegExp(glob: string): RegExp {
  if (typeof glob !== "string") {
    throw new TypeError("Invalid excludedPathPatterns: expected strings");
  }
  const source = [...glob].map((char) =>
    char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\]/g, "\\$&")
  ).join("");
  return new RegExp(`^${source}$`);
}
