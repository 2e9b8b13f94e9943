// Getting tokens: TokenManager, a pipeline of token fetch steps (single
// flight, stale runs, a client's transport), and clientCredentialsStep, the
// OAuth 2.0 client-credentials step. This file sits above the client, whose
// HttpClient sends a step's request when no client's transport is at hand.

import {
  currentTokenSender,
  type DPoPBinding,
  fitsInHeader,
  type TokenManagerInterface,
  withTokenSender,
} from "./hooks.ts";
import { HttpClient } from "../client/client.ts";
import { type HttpClientConfig, HttpClientConfigBuilder } from "../config/config.ts";
import { TokenData } from "../models/token_data.ts";
import { AuthenticationException, HttpClientException } from "../errors.ts";
import { hideCauseText } from "../masking/views.ts";
import { FetchContext, type TokenSender } from "../models/context.ts";
import { HttpRequest } from "../models/request.ts";
import { HttpResponse } from "../models/response.ts";
import {
  checkKnownKeys,
  describeType,
  keysOf,
  requireText,
  validateSeconds,
} from "../models/_validate.ts";
import type { Duration } from "../models/duration.ts";

/** One step of a token fetch: its token is stored in the context under `name`. */
export interface TokenFetchStep {
  /** The step's name, unique in the pipeline. */
  readonly name: string;
  /** Fetches the step's token; earlier steps' tokens are in `context`. */
  fetch(context: FetchContext): Promise<TokenData>;
}

/** Options of {@linkcode TokenManager}. */
export interface TokenManagerOptions {
  /** Treat a token as expired this many seconds early (or this long, with its unit: `"1m"`). Default 30. */
  refreshSkewSeconds?: number | Duration | undefined;
  /**
   * A run of the pipeline still going after this many seconds (or this long,
   * with its unit) is no longer
   * joined: the next call starts a new one and the old one's tokens are
   * dropped, so a hung token endpoint cannot hold every later call. Default 30.
   */
  staleRunSeconds?: number | Duration | undefined;
}

const MANAGER_OPTION_KEYS = keysOf<TokenManagerOptions>({
  refreshSkewSeconds: true,
  staleRunSeconds: true,
});

/**
 * Gets tokens through an ordered pipeline of steps (for example: log in,
 * then exchange the login token for an API token). Each step's token is
 * stored under its name; a step whose token is still valid is skipped; the
 * last step's token is the one used. Concurrent calls share one run of the
 * pipeline (single flight), so 100 requests meeting an expired token cause
 * one fetch. A run started for a client's call (by its
 * {@linkcode TokenAuthHook}) sends {@linkcode clientCredentialsStep}'s
 * requests through that client's transport; calls of other clients that
 * join the run fetch again through their own if that client closes first.
 * A failing step raises {@linkcode AuthenticationException} naming the step
 * and the class of its error (and the status, for one of this library's
 * exceptions that carries a response), with the error as `cause`: never its
 * message, which may hold a secret (a token endpoint echoing the client
 * secret). A token a header cannot carry (CR, LF, NUL, other control
 * characters, anything above U+00FF) fails its step the same way, unshown.
 *
 * @example A two-step pipeline
 * ```ts
 * import { TokenManager } from "@fetchline/fetchline";
 * import { TokenData } from "@fetchline/fetchline/config";
 * import assert from "node:assert/strict";
 *
 * let fetches = 0;
 * const manager = new TokenManager([
 *   { name: "login", fetch: () => Promise.resolve(new TokenData({ accessToken: "id-1" })) },
 *   {
 *     name: "api",
 *     fetch: (context) => {
 *       fetches++;
 *       return Promise.resolve(new TokenData({ accessToken: `api-for-${context.getTokenValue("login")}` }));
 *     },
 *   },
 * ]);
 * const [a, b] = await Promise.all([manager.getToken(), manager.getToken()]);
 * assert.equal(a.accessToken, "api-for-id-1");
 * assert.equal(a, b);
 * assert.equal(fetches, 1);
 * ```
 */
export class TokenManager implements TokenManagerInterface {
  /** The tokens of every step so far. */
  readonly context: FetchContext = new FetchContext();
  readonly #steps: readonly TokenFetchStep[];
  readonly #last: string;
  readonly #skewSeconds: number;
  readonly #staleRunMs: number;
  #running: Promise<TokenData> | undefined;
  /** The run in progress's sender: the transport of the client whose call started it. */
  #runSender: TokenSender | undefined;
  /** When the run in progress started, on the `performance.now()` clock. */
  #runStarted = 0;
  /** Counts the runs started: a run's tokens are stored only while it is the latest. */
  #generation = 0;

  /** Creates the manager from at least one step. */
  constructor(steps: readonly TokenFetchStep[], options: TokenManagerOptions = {}) {
    if (!Array.isArray(steps) || steps.length === 0) {
      throw new TypeError("Invalid steps: expected at least one token fetch step");
    }
    for (const step of steps) {
      if (typeof step?.name !== "string" || step.name === "" || typeof step.fetch !== "function") {
        throw new TypeError(
          "Invalid steps: each step needs a non-empty name and a fetch(context) function",
        );
      }
    }
    checkKnownKeys("TokenManager options", options, MANAGER_OPTION_KEYS);
    this.#steps = [...steps];
    this.#last = this.#steps.at(-1)!.name;
    this.#skewSeconds = validateSeconds("refreshSkewSeconds", options.refreshSkewSeconds ?? 30);
    this.#staleRunMs = validateSeconds("staleRunSeconds", options.staleRunSeconds ?? 30) * 1000;
  }

  /** Returns the last step's token while it is valid; otherwise runs the pipeline (or joins the run). */
  getToken(): Promise<TokenData> {
    const running = this.#joinable();
    if (running !== undefined) return this.#join(running, () => this.getToken());
    const current = this.context.getToken(this.#last);
    if (current !== undefined && this.#isValid(current)) return Promise.resolve(current);
    return this.#run(false);
  }

  /** Fetches a new last-step token (earlier steps only when expired), or joins the run. */
  refreshToken(): Promise<TokenData> {
    const running = this.#joinable();
    return running === undefined ? this.#run(true) : this.#join(running, () => this.refreshToken());
  }

  /** Discards the last step's token, unless a run is replacing it now. */
  invalidateToken(): void {
    if (this.#joinable() === undefined) this.context.tokens.delete(this.#last);
  }

  /** The run in progress, unless it has gone on too long, or its client has closed. */
  #joinable(): Promise<TokenData> | undefined {
    if (this.#running === undefined || this.#runSender?.closed?.aborted) return undefined;
    return performance.now() - this.#runStarted > this.#staleRunMs ? undefined : this.#running;
  }

  /**
   * Joins `running` for the current caller. When it fails because the client
   * whose transport it sent through closed, a caller of another client (or
   * of none) still open asks `again` through its own: one client's close
   * must not fail the calls of another sharing this manager.
   */
  #join(running: Promise<TokenData>, again: () => Promise<TokenData>): Promise<TokenData> {
    const own = currentTokenSender();
    const closed = this.#runSender?.closed;
    if (own === this.#runSender || closed === undefined) return running;
    return running.catch((error) => {
      if (!closed.aborted || own?.closed?.aborted) throw error;
      return withTokenSender(own, again);
    });
  }

  #isValid(token: TokenData): boolean {
    return !token.isExpired(Date.now(), this.#skewSeconds);
  }

  #run(forceLast: boolean): Promise<TokenData> {
    const generation = ++this.#generation;
    this.#runStarted = performance.now();
    const sender = this.#runSender = currentTokenSender();
    const run = (async () => {
      let token: TokenData | undefined;
      for (const [index, step] of this.#steps.entries()) {
        const known = this.context.getToken(step.name);
        const force = forceLast && index === this.#steps.length - 1;
        if (known !== undefined && this.#isValid(known) && !force) {
          token = known;
          continue;
        }
        token = await fetchStep(step, this.context, sender);
        // A run given up as stale keeps its tokens to itself: a newer run's are the ones kept.
        if (generation === this.#generation) this.context.addToken(step.name, token);
      }
      return token!;
    })();
    this.#running = run;
    const clear = () => {
      if (this.#running === run) this.#running = undefined;
    };
    run.then(clear, clear);
    return run;
  }
}

const stepFailed = (name: string, reason: string, cause?: unknown) =>
  new AuthenticationException(`Token step '${name}' failed: ${reason}`, { cause });

async function fetchStep(
  step: TokenFetchStep,
  context: FetchContext,
  sender: TokenSender | undefined,
): Promise<TokenData> {
  let token: unknown;
  try {
    token = await withTokenSender(sender, () => step.fetch(context));
  } catch (cause) {
    // Ours already names the step and holds no secret (clientCredentialsStep's status).
    if (cause instanceof AuthenticationException) throw cause;
    // The cause's text may quote a secret: views show only its class, and its status if ours.
    const response = cause instanceof HttpClientException
      ? (cause as { response?: unknown }).response
      : undefined;
    const status = response instanceof HttpResponse ? ` (status ${response.statusCode})` : "";
    throw hideCauseText(stepFailed(step.name, `it threw ${describeType(cause)}${status}`, cause));
  }
  if (!(token instanceof TokenData)) throw stepFailed(step.name, "it returned no TokenData");
  if (!fitsInHeader(token.accessToken)) {
    throw stepFailed(step.name, "its token holds characters a header cannot carry");
  }
  return token;
}

/** Options of {@linkcode clientCredentialsStep}. */
export interface ClientCredentialsOptions {
  /** The token endpoint, an absolute http: or https: URL. */
  tokenUrl: string;
  /** The client identifier. */
  clientId: string;
  /** The client secret. */
  clientSecret: string;
  /** The scope to request, space-separated. */
  scope?: string | undefined;
  /** The step's name in the pipeline. Default `client_credentials`. */
  name?: string | undefined;
  /** Where the credentials go: `header` (Basic, the default, RFC 6749 §2.3.1) or `body` (form fields). */
  credentialsIn?: "header" | "body" | undefined;
  /** The token request's timeout in seconds or with its unit (`"5s"`). Default: its client's (30 on its own). */
  timeout?: number | Duration | undefined;
  /**
   * Asks for a DPoP-bound token (RFC 9449) with a proof of this key
   * (`DPoP.generate()` of `@fetchline/fetchline/signing`), answering a
   * `use_dpop_nonce` challenge with one resend; a token whose `token_type`
   * is not `DPoP` fails the step. Give the same key to `withTokenAuth`.
   */
  dpop?: DPoPBinding | undefined;
}

const CLIENT_CREDENTIALS_KEYS = keysOf<ClientCredentialsOptions>({
  tokenUrl: true,
  clientId: true,
  clientSecret: true,
  scope: true,
  name: true,
  credentialsIn: true,
  timeout: true,
  dpop: true,
});

/**
 * A token fetch step for the OAuth 2.0 client-credentials grant (RFC 6749
 * §4.4), read with {@linkcode TokenData.fromOAuth2}. Run for a client's
 * call (its {@linkcode TokenAuthHook}), the token request goes through that
 * client's transport: its pool (so its proxy and `withTls` settings) and
 * its logging hooks (`withLogging` logs it, secrets masked), not its other
 * hooks, its auth hook nor its cookie jar, without retries; the call's
 * timeouts, signal and the client's close bound the wait for it. A
 * {@linkcode TokenManager} used on its own sends it with a client of its
 * own. A failure is an {@linkcode AuthenticationException} naming the step
 * and the status (and the OAuth `error` code when given), never the secret.
 *
 * @example Authenticate with client credentials
 * ```ts
 * import { clientCredentialsStep, HttpClientConfigBuilder, TokenManager } from "@fetchline/fetchline";
 *
 * const manager = new TokenManager([
 *   clientCredentialsStep({
 *     tokenUrl: "http://127.0.0.1:8080/oauth/token",
 *     clientId: "my-app",
 *     clientSecret: "s3cret",
 *     scope: "read write",
 *   }),
 * ]);
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl("http://127.0.0.1:8080/api")
 *   .withTokenAuth({ tokenManager: manager })
 *   .build();
 * ```
 */
export function clientCredentialsStep(options: ClientCredentialsOptions): TokenFetchStep {
  checkKnownKeys("client credentials options", options, CLIENT_CREDENTIALS_KEYS);
  const clientId = requireText("clientId", options.clientId);
  const clientSecret = requireText("clientSecret", options.clientSecret);
  const name = options.name ?? "client_credentials";
  const inBody = options.credentialsIn === "body";
  const { dpop } = options;
  if (
    dpop !== undefined &&
    (typeof dpop?.sendTokenRequest !== "function" || typeof dpop.handle !== "function")
  ) {
    throw new TypeError("Invalid dpop: expected a DPoP key from @fetchline/fetchline/signing");
  }
  const builder = new HttpClientConfigBuilder().withBaseUrl(options.tokenUrl).withRetry({
    maxRetries: 0,
  });
  if (options.timeout !== undefined) builder.withTimeout(options.timeout);
  const config = builder.build();
  const request = new HttpRequest("POST", config.baseUrl!, {
    data: {
      grant_type: "client_credentials",
      ...(options.scope === undefined ? {} : { scope: options.scope }),
      ...(inBody ? { client_id: clientId, client_secret: clientSecret } : {}),
    },
    headers: { Accept: "application/json" },
    ...(inBody ? {} : { auth: [clientId, clientSecret] as const }),
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
  });
  return {
    name,
    async fetch() {
      // Read at once: only the synchronous start of fetch() is told the client's sender.
      const sender = currentTokenSender();
      const send = (request: HttpRequest) =>
        sender === undefined ? sendAlone(request, config) : sender(request);
      const response = dpop === undefined
        ? await send(request)
        : await dpop.sendTokenRequest(request, send);
      const body = response.jsonOrUndefined<Record<string, unknown>>();
      const status = `status ${response.statusCode}`;
      if (!response.isSuccess) {
        const code = typeof body?.error === "string" && /^[\w.-]{1,64}$/.test(body.error)
          ? ` (${body.error})`
          : "";
        throw stepFailed(name, `${status}${code}`);
      }
      if (typeof body !== "object" || body === null) {
        throw stepFailed(name, `the response is not JSON (${status})`);
      }
      if (typeof body.access_token !== "string" || body.access_token === "") {
        throw stepFailed(name, `the response has no access_token (${status})`);
      }
      if (!fitsInHeader(body.access_token)) {
        throw stepFailed(
          name,
          `the access_token holds characters a header cannot carry (${status})`,
        );
      }
      if (dpop !== undefined && String(body.token_type).toLowerCase() !== "dpop") {
        throw stepFailed(name, `the token is not DPoP-bound (token_type is not DPoP; ${status})`);
      }
      return TokenData.fromOAuth2(body);
    },
  };
}

/** Sends the token request with a client of its own, closed after it. */
async function sendAlone(request: HttpRequest, config: HttpClientConfig): Promise<HttpResponse> {
  await using client = new HttpClient(config);
  return await client.request(request);
}
