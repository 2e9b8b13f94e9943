// Form encoding: a pure helper, no models, no I/O.

/** A form field value; numbers and booleans are sent as `String(value)`. */
export type FormValue = string | number | boolean;

/** The URL-encoded form text of `data`, in insertion order. */
export function encodeForm(data: Readonly<Record<string, FormValue>>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(data)) search.append(key, String(value));
  return search.toString();
}
