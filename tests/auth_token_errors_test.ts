// A failed token fetch is an AuthenticationException that names the step
// and the error's class, never the error's message or the token itself.

import assert from "node:assert/strict";
import {
  AuthenticationException,
  AuthorizationHook,
  HttpClient,
  HttpClientConfigBuilder,
  HttpRequest,
  HttpResponse,
  ResponseParseException,
  TokenAuthHook,
  TokenManager,
} from "../mod.ts";
import type { TokenManagerInterface } from "../interfaces.ts";
import { TokenData } from "../config.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { recordingLogger, rejectsWith } from "./helpers.ts";

const SECRET = "s3cret-in-a-message";

/** Everything a log or a caller could see of an error, its cause excepted. */
function shown(error: Error): string {
  return [error.message, String(error), JSON.stringify(error), Deno.inspect(error)].join("\n");
}

Deno.test("TokenManager names the failing step and the error's class, never the error's message", async () => {
  class TokenEndpointError extends Error {}
  const causes: unknown[] = [
    new Error(`invalid_client: client_secret=${SECRET}`),
    new TokenEndpointError(`token ${SECRET} was revoked`),
    `a string with ${SECRET}`,
  ];
  const expected = [/it threw Error$/, /it threw TokenEndpointError$/, /it threw string$/];
  for (const [index, cause] of causes.entries()) {
    const manager = new TokenManager([{ name: "login", fetch: () => Promise.reject(cause) }]);
    const error = await rejectsWith(manager.getToken(), AuthenticationException, expected[index]!);
    assert.match(error.message, /^Token step 'login' failed: /);
    assert.ok(!shown(error).includes(SECRET), shown(error));
    assert.equal(error.cause, cause, "the cause is kept");
  }
});

Deno.test("TokenManager names the status of one of our exceptions that carries a response", async () => {
  const response = new HttpResponse({
    statusCode: 502,
    headers: {},
    content: new TextEncoder().encode(`<html>${SECRET}</html>`),
    elapsedMs: 1,
    url: "http://127.0.0.1/token",
    request: new HttpRequest("POST", "http://127.0.0.1/token"),
  });
  const cause = new ResponseParseException(`Body is not JSON: ${SECRET}`, { response });
  const manager = new TokenManager([{ name: "login", fetch: () => Promise.reject(cause) }]);
  const error = await rejectsWith(
    manager.getToken(),
    AuthenticationException,
    /^Token step 'login' failed: it threw ResponseParseException \(status 502\)$/,
  );
  assert.ok(!shown(error).includes(SECRET));
});

Deno.test("A custom step's token that a header cannot carry is an AuthenticationException without the token", async () => {
  await using server = startFixtureServer();
  const { logger, lines } = recordingLogger();
  for (const char of ["\n", "\r", "\0", "\u0100", "\u{1f600}"]) {
    const bad = `Qz7${char}Wv9`;
    const manager = new TokenManager([{
      name: "custom",
      fetch: () => Promise.resolve(new TokenData({ accessToken: bad })),
    }]);
    await using client = new HttpClient(
      new HttpClientConfigBuilder().withBaseUrl(server.url).withTokenAuth({ tokenManager: manager })
        .withLogging({ logger }).withRetry({ maxRetries: 0 }).build(),
    );
    const error = await rejectsWith(
      client.get("/a"),
      AuthenticationException,
      /^Token step 'custom' failed: its token holds characters a header cannot carry$/,
    );
    assert.ok(!/Qz7|Wv9/.test(shown(error)), JSON.stringify(bad));
  }
  assert.ok(!lines.some(([, line]) => /Qz7|Wv9/.test(line)));
  assert.equal(server.requests.length, 0);
});

Deno.test("A token manager or provider returning a token a header cannot carry fails with AuthenticationException", async () => {
  await using server = startFixtureServer();
  const bad = "Qz7\r\nWv9";
  const manager: TokenManagerInterface = {
    getToken: () => Promise.resolve(new TokenData({ accessToken: bad })),
    refreshToken: () => Promise.resolve(new TokenData({ accessToken: bad })),
    invalidateToken() {},
  };
  const hooks = [
    new HttpClientConfigBuilder().withAuthHook(new TokenAuthHook(manager)),
    new HttpClientConfigBuilder().withRequestHook(new AuthorizationHook(() => bad)),
    new HttpClientConfigBuilder().withRequestHook(
      new AuthorizationHook(() => Promise.resolve(bad), { headerName: "X-Auth-Token", prefix: "" }),
    ),
  ];
  for (const builder of hooks) {
    await using client = new HttpClient(
      builder.withBaseUrl(server.url).withRetry({ maxRetries: 0 }).build(),
    );
    const error = await rejectsWith(
      client.get("/a"),
      AuthenticationException,
      /^The token (manager|provider) returned a token a header cannot carry: GET http:\/\/127\.0\.0\.1:\d+\/a$/,
    );
    assert.ok(!/Qz7|Wv9/.test(shown(error)));
    assert.ok(error.cause instanceof TypeError, "the cause names the header and the character");
    assert.match(error.cause.message, /"(Authorization|X-Auth-Token)".*CR at index 3/);
    assert.ok(!/Qz7|Wv9/.test(error.cause.message));
  }
  assert.equal(server.requests.length, 0);
});
