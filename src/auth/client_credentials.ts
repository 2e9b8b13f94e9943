import type { TokenFetchStep } from "./token_manager.ts";
import { checkKnownKeys, keysOf, requireText } from "../models/_validate.ts";
import { fitsInHeader } from "./_header_token.ts";
import { HttpClient } from "../client/http_client.ts";
import { HttpClientConfigBuilder } from "../config/config.ts";
import { TokenData } from "../models/token_data.ts";
import { AuthenticationException } from "../errors.ts";
import { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { currentTokenSender } from "./_token_transport.ts";

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
  /**
   * Where the client credentials go: `header` (HTTP Basic, the default, as
   * RFC 6749 §2.3.1 recommends) or `body` (`client_id` and `client_secret`
   * form fields).
   */
  credentialsIn?: "header" | "body" | undefined;
  /**
   * The token request's timeout in seconds. Default: the timeout of the
   * client the request goes through (30 on its own).
   */
  timeout?: number | undefined;
}

const OPTION_KEYS = keysOf<ClientCredentialsOptions>({
  tokenUrl: true,
  clientId: true,
  clientSecret: true,
  scope: true,
  name: true,
  credentialsIn: true,
  timeout: true,
});

/**
 * A token fetch step for the OAuth 2.0 client-credentials grant (RFC 6749
 * §4.4), read with {@linkcode TokenData.fromOAuth2}. Run for a client's
 * call (its {@linkcode TokenAuthHook}), the token request goes through that
 * client's transport: its pool (so its proxy and `withTls` settings) and
 * its logging hooks (`withLogging` logs it, secrets masked), not its other
 * hooks, its auth hook nor its cookie jar, without retries; the call's timeouts, signal
 * and the client's close bound the wait for it. A {@linkcode TokenManager}
 * used on its own sends it with a client of its own. A failure is an
 * {@linkcode AuthenticationException} naming the step and the status (and
 * the OAuth `error` code when given), never the secret.
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
  checkKnownKeys("client credentials options", options, OPTION_KEYS);
  const clientId = requireText("clientId", options.clientId);
  const clientSecret = requireText("clientSecret", options.clientSecret);
  const name = options.name ?? "client_credentials";
  const inBody = options.credentialsIn === "body";
  const builder = new HttpClientConfigBuilder().withBaseUrl(options.tokenUrl).withRetry({
    maxRetries: 0,
  });
  if (options.timeout !== undefined) builder.withTimeout(options.timeout);
  const config = builder.build();
  const fail = (reason: string) =>
    new AuthenticationException(`Token step '${name}' failed: ${reason}`);
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
      const send = currentTokenSender();
      const response = send === undefined ? await sendAlone(request, config) : await send(request);
      const body = response.jsonOrUndefined<Record<string, unknown>>();
      if (!response.isSuccess) {
        const code = typeof body?.error === "string" && /^[\w.-]{1,64}$/.test(body.error)
          ? ` (${body.error})`
          : "";
        throw fail(`status ${response.statusCode}${code}`);
      }
      if (typeof body !== "object" || body === null) {
        throw fail(`the response is not JSON (status ${response.statusCode})`);
      }
      if (typeof body.access_token !== "string" || body.access_token === "") {
        throw fail(`the response has no access_token (status ${response.statusCode})`);
      }
      if (!fitsInHeader(body.access_token)) {
        throw fail(
          `the access_token holds characters a header cannot carry (status ${response.statusCode})`,
        );
      }
      return TokenData.fromOAuth2(body);
    },
  };
}

/** Sends the token request with a client of its own, closed after it. */
async function sendAlone(
  request: HttpRequest,
  config: ReturnType<HttpClientConfigBuilder["build"]>,
): Promise<HttpResponse> {
  await using client = new HttpClient(config);
  return await client.request(request);
}
