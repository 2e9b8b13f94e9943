// A body as a HAR shows it: text when its type is text and its bytes are
// UTF-8, else base64; masked (a JSON body's credential-like fields, a
// form's) before it is cut to the recorder's limit; and the captured body
// of a streamed response, which grows as the caller reads it.

import { maskFormText, maskJsonText, maskSentIn } from "../masking/views.ts";

/** Types whose bodies are text. */
const TEXT_TYPES =
  /^text\/|[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|yaml|csv|x-ndjson)\b/i;
const JSON_TYPE = /[/+]json\b/i;
const FORM_TYPE = /\/x-www-form-urlencoded\b/i;

/** How a body is written into a HAR. */
export interface BodyRule {
  /** False: masks nothing (`maskSecrets: false`). */
  readonly mask: boolean;
  /** Lower-case names of further fields to mask (form fields, query parameters). */
  readonly sensitive: ReadonlySet<string>;
  /** The most bytes written; a longer body is cut there. */
  readonly maxBytes: number;
  /** The credentials the call sent (a response's rule), masked wherever the body quotes them back. */
  readonly secrets?: readonly string[] | undefined;
}

/** A body's text or base64, and whether it was cut or left out. */
export interface ShownBody {
  readonly text?: string;
  readonly base64?: boolean;
  /** Why the text is not there, when it is not. */
  readonly comment?: string;
  /** True when only the first `maxBytes` are written. */
  readonly truncated?: boolean;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** True when `mimeType` names text (JSON, XML, forms, event streams…), or is empty. */
export function isTextType(mimeType: string): boolean {
  return mimeType === "" || TEXT_TYPES.test(mimeType);
}

/**
 * `text` with its secrets masked by its type (a JSON body, a form), when
 * `rule` masks; `undefined` when it cannot be masked (a JSON body that does
 * not parse whole: cut short, or still arriving).
 */
function masked(
  text: string,
  mimeType: string,
  rule: BodyRule,
  whole: boolean,
): string | undefined {
  if (!rule.mask) return text;
  if (rule.secrets !== undefined) text = maskSentIn(text, rule.secrets);
  if (FORM_TYPE.test(mimeType)) return maskFormText(text, rule.sensitive);
  if (!JSON_TYPE.test(mimeType)) return text;
  if (!whole) return undefined;
  const shown = maskJsonText(text, rule.sensitive);
  if (shown !== text) return shown;
  try {
    JSON.parse(text);
    return text;
  } catch {
    // Not JSON after all: its secrets cannot be found, so it is not shown.
    return undefined;
  }
}

/** A JSON body that cannot be masked is left out, saying why. */
const UNMASKABLE = "not recorded: a JSON body is shown only whole and parsed, to mask its secrets";

/**
 * A string body as written: masked, then cut to `rule.maxBytes`. One longer
 * than that in UTF-16 units (so in bytes too) is cut first, never parsed or
 * copied whole: a masked JSON body is then left out, as a cut one cannot be
 * masked; what the recorder holds of it is bounded by `rule.maxBytes`.
 */
export function showText(text: string, mimeType: string, rule: BodyRule): ShownBody {
  if (text.length > rule.maxBytes) {
    // Its first `maxBytes` units are at least `maxBytes` bytes: all showBytes keeps.
    const start = encoder.encode(text.slice(0, rule.maxBytes));
    return { ...showBytes(start, mimeType, rule, false), truncated: true };
  }
  const shown = masked(text, mimeType, rule, true);
  if (shown === undefined) return { comment: UNMASKABLE };
  const bytes = encoder.encode(shown);
  if (bytes.byteLength <= rule.maxBytes) return { text: shown };
  return { ...showBytes(bytes.subarray(0, rule.maxBytes), mimeType, rule, false), truncated: true };
}

/**
 * Bytes as written: text when `mimeType` is text and they are UTF-8 (a
 * character cut at the end of a partial body is left out), else base64;
 * `whole` false for the start of a longer body.
 */
export function showBytes(
  bytes: Uint8Array,
  mimeType: string,
  rule: BodyRule,
  whole: boolean,
): ShownBody {
  const cut = bytes.byteLength > rule.maxBytes;
  const kept = cut ? bytes.subarray(0, rule.maxBytes) : bytes;
  const complete = whole && !cut;
  const text = isTextType(mimeType) ? utf8(kept, complete) : undefined;
  if (text === undefined) {
    // Binary: no field of it can be masked; a JSON type's bytes are not JSON text.
    if (rule.mask && JSON_TYPE.test(mimeType)) return { comment: UNMASKABLE, truncated: cut };
    return { text: base64(kept), base64: true, ...(cut ? { truncated: true } : {}) };
  }
  const shown = masked(text, mimeType, rule, complete);
  if (shown === undefined) return { comment: UNMASKABLE, ...(cut ? { truncated: true } : {}) };
  return cut ? { text: shown, truncated: true } : { text: shown };
}

/** `bytes` as UTF-8 text, or `undefined`; a partial body may end inside a character (dropped). */
function utf8(bytes: Uint8Array, whole: boolean): string | undefined {
  for (let drop = 0; drop <= (whole ? 0 : Math.min(3, bytes.byteLength)); drop++) {
    try {
      return UTF8.decode(bytes.subarray(0, bytes.byteLength - drop));
    } catch {
      // Try without the last bytes: a character cut in two.
    }
  }
  return undefined;
}

/** `bytes` in base64. */
export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.byteLength; at += 8192) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 8192));
  }
  return btoa(binary);
}

/** The bytes of a base64 text; a TypeError naming `field` when it is not base64. */
export function fromBase64(text: string, field: string): Uint8Array<ArrayBuffer> {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw new TypeError(`Invalid ${field}: expected base64 text`);
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The body of one response as the caller reads it: its first `maxBytes`
 * kept, every byte counted, and whether it was read to its end. Nothing
 * reads the body for it: it is handed the chunks the caller reads.
 */
export class Capture {
  #chunks: Uint8Array[] = [];
  #kept = 0;
  /** Every byte read so far. */
  size = 0;
  /** True once the body was read to its end. */
  done = false;
  /** When it was (`performance.now()`). */
  endedAt: number | undefined = undefined;

  /** Keeps up to `maxBytes` (and one more, so a cut shows); with `keep` false, only counts. */
  constructor(readonly maxBytes: number, readonly keep = true) {}

  /** Counts `chunk` and keeps a copy of what fits (the caller may write into its array). */
  add(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (!this.keep) return;
    const room = this.maxBytes + 1 - this.#kept;
    if (room <= 0) return;
    const part = chunk.byteLength <= room ? chunk.slice() : chunk.slice(0, room);
    this.#chunks.push(part);
    this.#kept += part.byteLength;
  }

  /** The body read to its end. */
  end(): void {
    this.done = true;
    this.endedAt = performance.now();
  }

  /** The body given up before its end (cancelled, or failed): its time ends here, `done` stays false. */
  stop(): void {
    this.endedAt ??= performance.now();
  }

  /** A body read whole at once. */
  whole(content: Uint8Array): void {
    this.add(content);
    this.end();
  }

  /** The kept bytes (up to one past `maxBytes`, so a cut shows). */
  bytes(): Uint8Array {
    if (this.#chunks.length > 1) {
      const joined = new Uint8Array(this.#kept);
      let at = 0;
      for (const chunk of this.#chunks) {
        joined.set(chunk, at);
        at += chunk.byteLength;
      }
      this.#chunks = [joined];
    }
    return this.#chunks[0] ?? new Uint8Array(0);
  }
}
