import type { TokenManagerInterface } from "./auth_interfaces.ts";
import { TokenData } from "../config/token_data.ts";
import { AuthenticationException, HttpClientException } from "../errors.ts";
import { FetchContext } from "../models/fetch_context.ts";
import { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, describeType, keysOf, validateSeconds } from "../models/_validate.ts";
import { fitsInHeader } from "./_header_token.ts";
import { hideCauseText } from "../masking/views.ts";
import { currentTokenSender, withTokenSender } from "./_token_transport.ts";
import type { TokenSender } from "../models/request_context.ts";

/** One step of a token fetch: its token is stored in the context under `name`. */
export interface TokenFetchStep {
  /** The step's name, unique in the pipeline. */
  readonly name: string;
  /**
   * Fetches the step's token; earlier steps' tokens are in `context`.
   *
   * @param context The fetch's shared context.
   * @returns The token.
   */
  fetch(context: FetchContext): Promise<TokenData>;
}

/** Options of {@linkcode TokenManager}. */
export interface TokenManagerOptions {
  /** Treat a token as expired this many seconds early. Default 30. */
  refreshSkewSeconds?: number | undefined;
  /**
   * A run of the pipeline still going after this many seconds is no longer
   * joined: the next call starts a new run, and the old one's tokens, should
   * they come, are dropped. Default 30. A call waiting for a token is bounded
   * by its own timeout anyway; this keeps one hung token endpoint from
   * holding every later call for good.
   */
  staleRunSeconds?: number | undefined;
}

const OPTION_KEYS = keysOf<TokenManagerOptions>({
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
 * {@linkcode TokenAuthHook}) sends the requests of
 * {@linkcode clientCredentialsStep} through that client's transport; calls
 * of other clients that join the run share it, and fetch again through
 * their own if that client closes first. A failing step raises
 * {@linkcode AuthenticationException} naming the step and the class of its error (and the status, for one of
 * this library's exceptions that carries a response), with the error as
 * `cause`: never the error's message, which may hold a secret (a token
 * endpoint echoing the client secret). A token that a header cannot carry
 * (CR, LF, NUL, other control characters, anything above U+00FF) fails its
 * step the same way, without the token.
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
  readonly #skewSeconds: number;
  readonly #staleRunMs: number;
  #running: Promise<TokenData> | undefined;
  /** The sender of the run in progress: the transport of the client whose call started it. */
  #runSender: TokenSender | undefined;
  /** When the run in progress started, on the `performance.now()` clock. */
  #runStarted = 0;
  /** Counts the runs started: a run's tokens are stored only while it is the latest. */
  #generation = 0;

  /**
   * Creates the manager.
   *
   * @param steps The ordered steps; at least one.
   * @param options The refresh skew, and when a run is too old to join.
   */
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
    checkKnownKeys("TokenManager options", options, OPTION_KEYS);
    this.#steps = [...steps];
    this.#skewSeconds = validateSeconds("refreshSkewSeconds", options.refreshSkewSeconds ?? 30);
    this.#staleRunMs = validateSeconds("staleRunSeconds", options.staleRunSeconds ?? 30) * 1000;
  }

  /**
   * Returns the last step's token while it is valid; otherwise runs the
   * pipeline (or joins the run in progress).
   *
   * @returns The token.
   */
  getToken(): Promise<TokenData> {
    const running = this.#joinable();
    if (running !== undefined) return this.#join(running, () => this.getToken());
    const current = this.context.getToken(this.#last);
    if (current !== undefined && this.#isValid(current)) return Promise.resolve(current);
    return this.#run(false);
  }

  /**
   * Fetches a new last-step token (earlier steps only when expired), or
   * joins the run in progress.
   *
   * @returns The new token.
   */
  refreshToken(): Promise<TokenData> {
    const running = this.#joinable();
    return running === undefined ? this.#run(true) : this.#join(running, () => this.refreshToken());
  }

  /** Discards the last step's token, unless a run is replacing it now. */
  invalidateToken(): void {
    if (this.#joinable() === undefined) this.context.tokens.delete(this.#last);
  }

  /**
   * The run in progress, unless it has gone on too long to be worth joining,
   * or the client whose transport it sends through has closed.
   */
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
    const runSender = this.#runSender;
    const own = currentTokenSender();
    const closed = runSender?.closed;
    if (own === runSender || closed === undefined) return running;
    return running.catch((error) => {
      if (!closed.aborted || own?.closed?.aborted) throw error;
      return withTokenSender(own, again);
    });
  }

  get #last(): string {
    return this.#steps.at(-1)!.name;
  }

  #isValid(token: TokenData): boolean {
    return !token.isExpired(Date.now(), this.#skewSeconds);
  }

  #run(forceLast: boolean): Promise<TokenData> {
    const generation = ++this.#generation;
    this.#runStarted = performance.now();
    // The transport of the client whose call started the run (none when used on its own).
    const sender = currentTokenSender();
    this.#runSender = sender;
    const run = (async () => {
      let token: TokenData | undefined;
      for (const [index, step] of this.#steps.entries()) {
        const known = this.context.getToken(step.name);
        const isLast = index === this.#steps.length - 1;
        if (known !== undefined && this.#isValid(known) && !(isLast && forceLast)) {
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

async function fetchStep(
  step: TokenFetchStep,
  context: FetchContext,
  sender: TokenSender | undefined,
): Promise<TokenData> {
  const fail = (reason: string, cause?: unknown) =>
    new AuthenticationException(
      `Token step '${step.name}' failed: ${reason}`,
      cause === undefined ? {} : { cause },
    );
  let token: unknown;
  try {
    token = await withTokenSender(sender, () => step.fetch(context));
  } catch (cause) {
    // Ours already names the step and holds no secret (clientCredentialsStep's status).
    if (cause instanceof AuthenticationException) throw cause;
    // The cause's text may quote a secret: views show only its class.
    throw hideCauseText(fail(`it threw ${describeError(cause)}`, cause));
  }
  if (!(token instanceof TokenData)) throw fail("it returned no TokenData");
  if (!fitsInHeader(token.accessToken)) {
    throw fail("its token holds characters a header cannot carry");
  }
  return token;
}

/** The class of `error`, and the status when it is one of ours that carries a response. */
function describeError(error: unknown): string {
  const response = error instanceof HttpClientException
    ? (error as { response?: unknown }).response
    : undefined;
  const status = response instanceof HttpResponse ? ` (status ${response.statusCode})` : "";
  return `${describeType(error)}${status}`;
}
