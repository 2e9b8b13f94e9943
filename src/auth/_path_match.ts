// Excluded paths: exact pathnames, and fnmatch-style patterns where `*` is
// any run of characters (`/` included), `?` is one character and every
// other character stands for itself.

/** A predicate telling whether a request URL's pathname is excluded. */
export function pathExclusion(
  excludedPaths: Iterable<string> = [],
  excludedPathPatterns: Iterable<string> = [],
): (url: string) => boolean {
  const exact = new Set(excludedPaths);
  const patterns = [...excludedPathPatterns].map(compileGlob);
  if (exact.size === 0 && patterns.length === 0) return () => false;
  return (url) => {
    const path = URL.parse(url, "http://relative.invalid")?.pathname ?? url;
    return exact.has(path) || patterns.some((pattern) => globMatches(pattern, path));
  };
}

/** A pattern as the pieces between its `*`s; a pattern without `*` is one piece. */
type Glob = readonly string[];

function compileGlob(glob: string): Glob {
  if (typeof glob !== "string") {
    throw new TypeError("Invalid excludedPathPatterns: expected strings");
  }
  return glob.split("*");
}

/**
 * Whether `path` matches: the first piece at the start, the last at the
 * end, and each piece between at its leftmost place after the one before.
 * Leftmost is always right, as it leaves the most room to the pieces after,
 * so no choice is ever undone: time is at most the path's length times the
 * pattern's, where a pattern compiled to a backtracking RegExp
 * (`*a*a*a*b` as `^.*a.*a.*a.*b$`) takes time exponential in its `*`s.
 */
function globMatches(pieces: Glob, path: string): boolean {
  const first = pieces[0] as string;
  if (pieces.length === 1) return first.length === path.length && pieceAt(first, path, 0);
  const last = pieces[pieces.length - 1] as string;
  const end = path.length - last.length;
  if (end < first.length || !pieceAt(first, path, 0) || !pieceAt(last, path, end)) return false;
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i] as string;
    const found = findPiece(piece, path, at, end);
    if (found === -1) return false;
    at = found + piece.length;
  }
  return true;
}

/** The leftmost index from `from` where `piece` matches and ends by `end`, or -1. */
function findPiece(piece: string, path: string, from: number, end: number): number {
  if (!piece.includes("?")) {
    const found = path.indexOf(piece, from);
    return found !== -1 && found + piece.length <= end ? found : -1;
  }
  for (let at = from; at + piece.length <= end; at++) if (pieceAt(piece, path, at)) return at;
  return -1;
}

/** Whether `piece` (where `?` is any one character) matches `path` at `at`. */
function pieceAt(piece: string, path: string, at: number): boolean {
  if (at + piece.length > path.length) return false;
  for (let i = 0; i < piece.length; i++) {
    const char = piece.charCodeAt(i);
    if (char !== QUESTION && char !== path.charCodeAt(at + i)) return false;
  }
  return true;
}

const QUESTION = 0x3f;
