// The HAR recorder (API.md "Recording and replay"): a middleware link that
// writes each exchange it passes on as an entry of a HAR 1.2 log, masked as
// the logs are; a streamed body is recorded as the caller reads it.

import type { Exchange, MiddlewareFunction, Next } from "../hooks/hook_interfaces.ts";
import { credentialsOf, type HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, describeType, keysOf, validatePositive } from "../models/_validate.ts";
import { bothNames, type CredentialNames } from "../masking/credentials.ts";
import { describeError, maskSecretsIn, sentSecrets } from "../masking/views.ts";
import { Capture, showBytes } from "./bodies.ts";
import { type EntryRule, harRequest, harResponseHead, UNKNOWN_VERSION } from "./entries.ts";
import type { Har, HarContent, HarEntry, HarRequest, HarResponse } from "./types.ts";

/** The version of fetchline a HAR's `creator` names (tests/har_test.ts holds it to deno.json's). */
export const FETCHLINE_VERSION = "0.1.0";

/** Options of a {@linkcode HarRecorder}. */
export interface HarRecorderOptions {
  /**
   * Mask secrets as the logs do (default true): the values of
   * `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`,
   * `X-API-Key` and the credential headers the client's hooks declare;
   * credential-like query values and form fields (`token`, `api_key`,
   * `password`…); a URL's user-info; cookie values; the values of a JSON
   * body's credential-like fields (`password`, `accessToken`, `apiKey`…);
   * in a response's text body and a failed exchange's error, the
   * credentials the call sent, where they are quoted back. `false` records every secret as sent and received: a HAR is a file
   * people share, attach to issues and open in tools, and anyone who reads
   * one with secrets in it can call the API as you. Turn it off only for a
   * recording that never leaves your machine.
   */
  maskSecrets?: boolean | undefined;
  /** Record request and response bodies (default true); false keeps their sizes and types only. */
  bodies?: boolean | undefined;
  /**
   * The most bytes of a body written (default 1 MiB); a longer one is cut
   * there and its entry says so (`_truncated: true`). A masked JSON body is
   * written only whole: a longer one is left out, never parsed (a part of it
   * cannot be masked), and its entry says so. What the recorder keeps of a
   * body is bounded by this: it never copies or parses a longer string,
   * bytes or response body whole to show the start of it.
   */
  maxBodyBytes?: number | undefined;
  /** Further header, query parameter, form field and JSON field names to mask, in any letter case. */
  sensitiveKeys?: Iterable<string> | undefined;
}

const OPTION_KEYS = keysOf<HarRecorderOptions>({
  maskSecrets: true,
  bodies: true,
  maxBodyBytes: true,
  sensitiveKeys: true,
});

/** One exchange as recorded so far: its response's body may still be arriving. */
interface Recorded {
  readonly startedDateTime: string;
  readonly since: number;
  readonly request: HarRequest;
  readonly rule: EntryRule;
  head?: Omit<HarResponse, "content" | "bodySize">;
  mimeType?: string;
  headAt?: number;
  /** The response's `Content-Encoding`, `Content-Length` and `Cache-Status`. */
  encoding?: string | undefined;
  length?: string | undefined;
  cacheStatus?: string | undefined;
  capture?: Capture;
  /** The response whose `timings` fill the phases the runtime tells. */
  response?: HttpResponse;
  error?: string;
  endedAt?: number;
}

/**
 * Records a client's exchanges as a HAR 1.2 log (an HTTP Archive, the
 * format of browsers' developer tools): plug it in with
 * `withMiddleware(recorder)`, then `JSON.stringify(recorder.toHar())` is a
 * `.har` file that opens in a browser's developer tools and that
 * `MockTransport.fromHar()` replays in tests with no network.
 *
 * Each exchange that passes through it is one entry: every attempt, every
 * redirect hop, every resend after a 401. Where it sits in the chain
 * decides what it sees: registered before a cache
 * (`withMiddleware(recorder, cache)`, the first registered is the
 * outermost) it records cache hits too, with the response's `Cache-Status`
 * in the entry's `cache._cacheStatus`; after it, only what reaches the
 * network. An exchange that fails is an entry with status 0 and the masked
 * error in `response._error`, as browsers write them.
 *
 * An entry holds the request's method, URL, query, headers, cookies and
 * body, and the response's status, headers, cookies and body (text, or
 * base64 for binary, up to `maxBodyBytes`); the timings the runtime tells
 * (the response's `timings`: the traffic controls' wait as `blocked`, and
 * `dns`, `connect`, `ssl` and `send` where the runtime tells them, else
 * `-1` (`send` 0); the time to the response's head as `wait`, the body's
 * reading as `receive`). The protocol version and the
 * reason phrase are not told by every runtime: `unknown` and `""`. A
 * streamed response's body is recorded as the caller reads it, never read
 * by the recorder: `toHar()` shows what was read so far (an event stream's
 * events as they came), with `_partial: true` until its end.
 *
 * Secrets are masked by default as the logs mask them
 * ({@linkcode HarRecorderOptions.maskSecrets}).
 *
 * @example Record a session to a .har file
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { HarRecorder } from "@fetchline/fetchline/har";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   () => Response.json({ ok: true }),
 * );
 * const recorder = new HarRecorder();
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *     .withMiddleware(recorder).build(),
 * );
 * await client.get("/status", { headers: { Authorization: "Bearer s3cret" } });
 * const har = recorder.toHar();
 * assert.equal(har.log.entries[0]?.response.content.text, '{"ok":true}');
 * assert.ok(!JSON.stringify(har).includes("s3cret"));
 * // await Deno.writeTextFile("session.har", JSON.stringify(har, null, 2));
 * ```
 */
export class HarRecorder {
  /** True when secrets are masked. */
  readonly maskSecrets: boolean;
  /** True when bodies are recorded. */
  readonly bodies: boolean;
  /** The most bytes of a body written. */
  readonly maxBodyBytes: number;
  readonly #sensitive: ReadonlySet<string>;
  readonly #rules = new WeakMap<ReadonlySet<string>, EntryRule>();
  readonly #rule: EntryRule;
  readonly #entries: Recorded[] = [];

  /** Creates a recorder; see {@linkcode HarRecorderOptions}. */
  constructor(options: HarRecorderOptions = {}) {
    checkKnownKeys("HarRecorder options", options, OPTION_KEYS);
    for (const name of ["maskSecrets", "bodies"] as const) {
      const value = options[name];
      if (value !== undefined && typeof value !== "boolean") {
        throw new TypeError(`Invalid ${name}: expected a boolean, got ${describeType(value)}`);
      }
    }
    this.maskSecrets = options.maskSecrets ?? true;
    this.bodies = options.bodies ?? true;
    this.maxBodyBytes = validatePositive("maxBodyBytes", options.maxBodyBytes ?? 2 ** 20);
    const keys = options.sensitiveKeys ?? [];
    if (typeof (keys as Partial<Iterable<string>>)[Symbol.iterator] !== "function") {
      throw new TypeError(`Invalid sensitiveKeys: expected names, got ${describeType(keys)}`);
    }
    this.#sensitive = new Set([...keys].map((name) => String(name).toLowerCase()));
    this.#rule = this.#ruleOf(undefined);
  }

  /** The middleware: `withMiddleware(recorder)` calls it for each exchange. */
  readonly handle: MiddlewareFunction = (request, next, exchange) =>
    this.#record(request, next, exchange);

  /** How many exchanges were recorded. */
  get size(): number {
    return this.#entries.length;
  }

  /** Forgets the exchanges recorded so far. */
  clear(): void {
    this.#entries.length = 0;
  }

  /**
   * The HAR 1.2 log of the exchanges recorded so far, in the order they
   * started: a new object each call, for `JSON.stringify` (a streamed body
   * still being read shows what was read).
   */
  toHar(): Har {
    return {
      log: {
        version: "1.2",
        creator: { name: "fetchline", version: FETCHLINE_VERSION },
        entries: this.#entries.map((recorded) => this.#entryOf(recorded)),
      },
    };
  }

  /** {@linkcode toHar}, for `JSON.stringify(recorder)`. */
  toJSON(): Har {
    return this.toHar();
  }

  /** The rule of a call whose client names `credentialHeaders` (its hooks', its own). */
  #ruleOf(credentialHeaders: CredentialNames | undefined): EntryRule {
    const known = credentialHeaders === undefined ? undefined : this.#rules.get(credentialHeaders);
    if (known !== undefined) return known;
    const rule: EntryRule = {
      mask: this.maskSecrets,
      bodies: this.bodies,
      maxBytes: this.maxBodyBytes,
      sensitive: bothNames(this.#sensitive, credentialHeaders),
    };
    if (credentialHeaders !== undefined) this.#rules.set(credentialHeaders, rule);
    return rule;
  }

  async #record(
    request: HttpRequest,
    next: Next,
    exchange: Exchange,
  ): Promise<HttpResponse> {
    // The credential names of the request's client, which the request carries.
    const names = credentialsOf(request);
    const rule = names === undefined ? this.#rule : this.#ruleOf(names);
    const recorded: Recorded = {
      startedDateTime: new Date().toISOString(),
      since: performance.now(),
      request: harRequest(request, rule),
      // A response body that quotes back what the call sent has it masked too
      // (each once: a large JSON body may hold the same one in every row).
      rule: rule.mask
        ? { ...rule, secrets: [...new Set(sentSecrets(request, rule.sensitive))] }
        : rule,
    };
    this.#entries.push(recorded);
    let response: HttpResponse;
    try {
      response = await next(request);
    } catch (error) {
      // Masked as every message is: the URLs in it, and the credentials the call sent.
      const described = describeError(error, rule.mask ? rule.sensitive : undefined);
      const { secrets } = recorded.rule;
      recorded.error = secrets === undefined ? described : maskSecretsIn(described, secrets);
      recorded.endedAt = performance.now();
      throw error;
    }
    recorded.headAt = performance.now();
    recorded.head = harResponseHead(response, recorded.rule);
    recorded.mimeType = response.headers["content-type"] ?? "";
    recorded.encoding = response.headers["content-encoding"];
    recorded.length = response.headers["content-length"];
    recorded.cacheStatus = response.headers["cache-status"];
    recorded.response = response;
    const capture = recorded.capture = new Capture(this.maxBodyBytes, this.bodies);
    // Recorded as the caller reads it: the recorder never reads ahead.
    return exchange.observe(response, {
      onChunk: (chunk) => capture.add(chunk),
      onEnd: () => capture.end(),
      onCancel: () => capture.stop(),
      onError: () => capture.stop(),
    });
  }

  /** `recorded` as a HAR entry, its body as read so far. */
  #entryOf(recorded: Recorded): HarEntry {
    const { since, headAt, capture, head } = recorded;
    const end = capture?.endedAt ?? (capture === undefined ? recorded.endedAt : performance.now());
    const told = recorded.response?.timings;
    const receive = told?.downloadMs ??
      (headAt === undefined ? 0 : Math.max(0, (end ?? headAt) - headAt));
    // The exchange's own wait for its head (with the phases before it the runtime does not tell).
    const wait = told?.waitMs ?? Math.max(0, (headAt ?? end ?? since) - since);
    const timings = {
      blocked: told?.queueMs ?? -1,
      dns: told?.dnsMs ?? -1,
      connect: told?.connectMs ?? -1,
      send: told?.sendMs ?? 0,
      wait,
      receive,
      ssl: told?.tlsMs ?? -1,
    };
    const time = Math.max(0, timings.blocked) + Math.max(0, timings.dns) +
      Math.max(0, timings.connect) + timings.send + wait + receive;
    const cache = recorded.cacheStatus === undefined ? {} : { _cacheStatus: recorded.cacheStatus };
    const entry = {
      startedDateTime: recorded.startedDateTime,
      time,
      request: recorded.request,
      cache,
      timings,
    };
    if (head === undefined || capture === undefined) {
      return { ...entry, response: failedResponse(recorded.error ?? "Error: no response") };
    }
    const hit = /(^|,)\s*fetchline;\s*hit\b/.test(recorded.cacheStatus ?? "");
    const length = Number(recorded.length);
    const bodySize = hit
      ? 0
      : recorded.encoding === undefined && capture.done
      ? capture.size
      : Number.isInteger(length) && length >= 0
      ? length
      : -1;
    return {
      ...entry,
      response: { ...head, content: this.#contentOf(recorded, capture), bodySize },
    };
  }

  /** The response's body as a HAR `content`. */
  #contentOf(recorded: Recorded, capture: Capture): HarContent {
    const mimeType = recorded.mimeType ?? "";
    const content: HarContent = { size: capture.size, mimeType };
    if (!capture.done) content._partial = true;
    if (!this.bodies) {
      content.comment = "not recorded: the recorder keeps no bodies (bodies: false)";
      return content;
    }
    if (capture.size === 0) return { ...content, text: "" };
    const shown = showBytes(capture.bytes(), mimeType, recorded.rule, capture.done);
    if (shown.text !== undefined) content.text = shown.text;
    if (shown.base64) content.encoding = "base64";
    if (shown.comment !== undefined) content.comment = shown.comment;
    if (shown.truncated) content._truncated = true;
    return content;
  }
}

/** A HAR response for an exchange that failed: status 0 and the error, as browsers write them. */
function failedResponse(error: string): HarResponse {
  return {
    status: 0,
    statusText: "",
    httpVersion: UNKNOWN_VERSION,
    cookies: [],
    headers: [],
    content: { size: 0, mimeType: "x-unknown" },
    redirectURL: "",
    headersSize: -1,
    bodySize: -1,
    _error: error,
  };
}
