// The value of a request header a response's Vary names, normalised before
// two requests' are compared (RFC 9111 4.1: a cache may normalise values
// that mean the same): list members trimmed, the spaces around `;` and `=`
// dropped, empty members dropped; members of the Accept-Language,
// Accept-Encoding and Accept-Charset lists, whose order means nothing (their
// q-values do) and whose tokens are case-insensitive, lower-cased and
// sorted.

/** The fields whose list members are case-insensitive tokens in no order. */
const UNORDERED: ReadonlySet<string> = new Set([
  "accept-language",
  "accept-encoding",
  "accept-charset",
]);

/** The normalised value of the request header `name` (lower-case), `undefined` when absent. */
export function varyValue(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const members = value.split(",")
    .map((member) => member.trim().replace(/\s*([;=])\s*/g, "$1"))
    .filter((member) => member !== "");
  if (!UNORDERED.has(name)) return members.join(",");
  return members.map((member) => member.toLowerCase()).sort().join(",");
}

/** The field names of a Vary value, lower-case (`*` among them when it has one). */
export function varyNames(vary: string | undefined): string[] {
  if (vary === undefined) return [];
  return vary.toLowerCase().split(",").map((name) => name.trim()).filter((name) => name !== "");
}
