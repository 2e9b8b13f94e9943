// Masking: the password or token of a URL in any spelling the URL parser
// accepts, credential-like query values (in the URL or in params), and the
// credentials an exception, request, response, client or configuration
// carries never appear in String(), console.log(), JSON.stringify(), an
// error message or a log line.

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  LoggingErrorHook,
  LoggingRequestHook,
  RequestContext,
  ResponseParseException,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { recordingLogger } from "./helpers.ts";

const PASSWORD = "pw-s3cret";
const TOKEN = "us3r-t0ken";
/** A client certificate's shape: the checks look for the PEM block, not the DER inside. */
const PEM_CERT = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
const QUERY_SECRETS = ["q-acc3ss", "q-ap1key", "q-s1gnature", "q-t3nant"];

/** Every text a value can be shown as. */
function shown(value: unknown): string[] {
  const texts = [String(value), Deno.inspect(value, { depth: 10 }), JSON.stringify(value)];
  for (let e = value; e instanceof Error; e = e.cause) texts.push(e.message, String(e.stack));
  return texts;
}

function assertHidden(texts: string[], secrets: string[]): void {
  for (const secret of secrets) {
    const leak = texts.find((text) => text.includes(secret));
    assert.equal(leak, undefined, `${secret} leaked`);
  }
}

/** A port on 127.0.0.1 nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  return listener.addr.port;
}

/** Spellings the URL parser reads as `http://<userInfo>@<host>/x`. */
function spellings(userInfo: string, host: string): string[] {
  return [
    `http:/${userInfo}@${host}/x`,
    `http:\\\\${userInfo}@${host}/x`,
    `HTTP://${userInfo}@${host}/x`,
    `http:${userInfo}@${host}/x`,
  ];
}

/** Spellings the URL parser would also read so, which a request refuses: controls, blanks at the ends. */
function refusedSpellings(userInfo: string, host: string): string[] {
  return [
    `  http://${userInfo}@${host}/x \t`,
    `\thttp://${userInfo}\n@${host}/x\n`,
    ` http://${userInfo}@${host}/x`,
  ];
}

Deno.test("A URL spelling with a control character or a blank at an end is refused with a TypeError that shows no credential", async () => {
  await using client = new HttpClient();
  for (const userInfo of [`ada:${PASSWORD}`, TOKEN]) {
    for (const url of refusedSpellings(userInfo, "127.0.0.1")) {
      let thrown: unknown;
      assert.throws(
        () => new HttpRequest("GET", url),
        (error) => (thrown = error) instanceof TypeError,
      );
      const error = await client.get(url).then(() => assert.fail(url), (error) => error);
      assert.ok(error instanceof TypeError, String(error));
      assert.match(error.message, /^Invalid url: character (U\+\w{4}|LF) at index \d+ is not/);
      assertHidden([...shown(thrown), ...shown(error)], [PASSWORD, TOKEN]);
    }
  }
});

Deno.test("A password or a lone user name in any URL spelling is masked in String(), console.log() and JSON.stringify() of a request", () => {
  for (const userInfo of [`ada:${PASSWORD}`, TOKEN]) {
    for (const url of spellings(userInfo, "127.0.0.1")) {
      const request = new HttpRequest("GET", url);
      assertHidden(shown(request), [PASSWORD, TOKEN]);
      const expected = userInfo === TOKEN ? "***@" : "ada:***@";
      assert.equal(String(request), `HttpRequest(GET http://${expected}127.0.0.1/x)`);
    }
  }
});

Deno.test("A password in any URL spelling is masked in the errors of a closed client, an unresolvable or invalid URL and a refused connection, and in the log lines", async () => {
  const { logger, lines } = recordingLogger();
  const config = new HttpClientConfigBuilder().withTimeout(5).withRetry({ maxRetries: 0 })
    .withLogging({ logger, logHeaders: true }).build();
  const errors: unknown[] = [];
  const fail = async (client: HttpClient, url: string) => {
    const error = await client.get(url).then(() => assert.fail(url), (error) => error);
    assert.ok(error instanceof HttpClientException, String(error));
    errors.push(error);
    return error;
  };
  {
    await using client = new HttpClient(config);
    for (const userInfo of [`ada:${PASSWORD}`, TOKEN]) {
      const port = closedPort();
      for (const url of spellings(userInfo, `127.0.0.1:${port}`)) {
        const error = await fail(client, url);
        assert.match(
          error.message,
          /^Connection failed: connection refused \(.+\): GET http:\/\/127\.0\.0\.1:\d+\/x$/,
        );
      }
      for (const url of [`//${userInfo}@127.0.0.1/x`]) {
        const error = await fail(client, url);
        assert.match(error.message, /^Cannot resolve a relative URL without a base URL: GET /);
      }
      for (const url of [`HTTP:/${userInfo}@127.0.0.1:99999/x`, `http://${userInfo}@[bad/`]) {
        assert.match(
          (await fail(client, url)).message,
          /^Invalid URL: GET https?:\/*(ada:)?\*\*\*@/i,
        );
      }
    }
  }
  const closed = new HttpClient(config);
  closed.close();
  for (const url of [...spellings(`ada:${PASSWORD}`, "h"), ...spellings(TOKEN, "h")]) {
    assert.match(
      (await fail(closed, url)).message,
      /^Client is closed: GET http:\/\/(ada:)?\*\*\*@h\/x$/,
    );
  }
  assert.ok(lines.some(([level]) => level === "error"));
  assertHidden([...lines.map(([, line]) => line), ...errors.flatMap(shown)], [PASSWORD, TOKEN]);
});

Deno.test("Credential-like query values, in the URL or in params, are masked in log lines, errors, String(), console.log() and JSON.stringify()", async () => {
  await using server = startFixtureServer();
  const { logger, lines } = recordingLogger();
  const builder = () =>
    new HttpClientConfigBuilder().withTimeout(5).withRetry({ maxRetries: 0 })
      .withLogging({ logger, sensitiveKeys: ["Tenant_Secret"] });
  await using client = new HttpClient(builder().withBaseUrl(server.url).build());
  const [access, apiKey, signature, tenant] = QUERY_SECRETS;
  const path =
    `/echo?Access_Token=${access}&page=2&X-Amz-Signature=${signature}&tenant_secret=${tenant}`;
  const response = await client.get(path, { params: { api_key: apiKey, q: "a b" } });
  const masked = "/echo?Access_Token=***&page=2&X-Amz-Signature=***&tenant_secret=***";
  assert.equal(lines[0]![1].replace(/^\[\w+\] /, ""), `HTTP GET ${masked}&api_key=***&q=a+b`);
  assert.match(
    String(response.request),
    /\/echo\?Access_Token=\*\*\*&page=2&X-Amz-Signature=\*\*\*&/,
  );
  assert.deepEqual(JSON.parse(JSON.stringify(response.request)).params, {
    api_key: "***",
    q: "a b",
  });
  const port = closedPort();
  await using refused = new HttpClient(builder().withBaseUrl(`http://127.0.0.1:${port}`).build());
  const error = await refused.get(path, { params: { api_key: apiKey } }).catch((e) => e);
  assert.equal(error.constructor, ConnectionException);
  assert.match(error.message, /\?Access_Token=\*\*\*&page=2&X-Amz-Signature=\*\*\*&/);
  const errorLine = lines.find(([level]) => level === "error")![1];
  assert.match(
    errorLine,
    /Request failed \(attempt 1\/1\): ConnectionException: .*tenant_secret=\*\*\*/,
  );
  // The logs and the error mask every secret; String() and console.log() mask the built-in names.
  assertHidden(lines.map(([, line]) => line), QUERY_SECRETS);
  assertHidden([...shown(response), ...shown(error)], [access!, apiKey!, signature!]);
});

Deno.test("JSON.stringify() of exceptions, requests and responses shows the masked view and no credential", async () => {
  await using server = startFixtureServer();
  server.route(
    "/bad-json",
    () => new Response("{not json", { headers: { "set-cookie": "sid=c00kie-s3cret" } }),
  );
  const secrets = [
    "b3arer-s3cret",
    "c00kie-s3cret",
    "k3y-s3cret",
    PASSWORD,
    btoa(`ada:${PASSWORD}`),
  ];
  const headers = {
    Authorization: "Bearer b3arer-s3cret",
    Cookie: "sid=c00kie-s3cret",
    "X-API-Key": "k3y-s3cret",
  };
  const config = new HttpClientConfigBuilder().withTimeout(5).withRetry({ maxRetries: 0 }).build();
  await using client = new HttpClient(config);
  const response = await client.get(`${server.url}/bad-json`, { headers, auth: ["ada", PASSWORD] });
  let parseError: unknown;
  assert.throws(() => response.json(), (error) => (parseError = error, true));
  assert.ok(parseError instanceof ResponseParseException);
  const refused = await client.post(`http://127.0.0.1:${closedPort()}/x`, {
    headers,
    auth: ["ada", PASSWORD],
    jsonData: { user: "ada", password: PASSWORD },
  }).catch((e) => e);
  assert.equal(refused.constructor, ConnectionException);
  const asJson = JSON.parse(JSON.stringify(refused));
  assert.equal(asJson.name, "ConnectionException");
  assert.equal(asJson.message, refused.message);
  assert.deepEqual(asJson.request.headers, {
    Authorization: "***",
    Cookie: "***",
    "X-API-Key": "***",
  });
  assert.deepEqual(asJson.request.auth, ["ada", "***"]);
  assert.deepEqual(asJson.request.jsonData, { user: "ada", password: "***" });
  assert.equal(typeof asJson.cause.message, "string");
  const parsed = JSON.parse(JSON.stringify(parseError));
  assert.equal(parsed.response.headers["set-cookie"], "***");
  assert.equal(parsed.response.request.headers.Authorization, "***");
  assert.match(parsed.response.content, /^Uint8Array\(\d+\)$/);
  for (const value of [refused, parseError, response, response.request]) {
    assertHidden(shown(value), secrets);
  }
});

Deno.test("console.log() and JSON.stringify() of a client and its configuration mask the base URL's password, a proxy's basicAuth and user-info, and a TLS key", () => {
  const secrets = [
    "ba5e-s3cret",
    "pr0xy-s3cret",
    "pr0xy-url-s3cret",
    "PRIVATE KEY s3cret",
    "hdr-s3cret",
  ];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl("HTTP:/ada:ba5e-s3cret@127.0.0.1/api")
    .withHeaders({ "X-Api-Key": "hdr-s3cret" })
    .withProxy("http://ada:pr0xy-s3cret@127.0.0.1:3128")
    .withPool({ nested: { url: "http://proxy:pr0xy-url-s3cret@h/" } })
    .withTls({
      cert: PEM_CERT,
      key: "-----BEGIN PRIVATE KEY-----\nPRIVATE KEY s3cret\n-----END PRIVATE KEY-----",
    })
    .build();
  using client = new HttpClient(config);
  for (const value of [client, config]) {
    const texts = [Deno.inspect(value, { depth: 10 }), JSON.stringify(value)];
    assertHidden(texts, secrets);
    assert.ok(texts.every((text) => text.includes("ada")), "the user names are shown");
  }
  const json = JSON.parse(JSON.stringify(client));
  assert.equal(json.config.baseUrl, "http://ada:***@127.0.0.1/api");
  assert.deepEqual(json.config.proxy, { url: "http://ada:***@127.0.0.1:3128", noProxy: [] });
  assert.deepEqual(json.config.pool, { nested: { url: "http://proxy:***@h/" } });
  assert.deepEqual(json.config.tls, { cert: PEM_CERT, key: "***" });
  assert.deepEqual(JSON.parse(JSON.stringify(config)).tls, json.config.tls);
  assert.deepEqual(JSON.parse(JSON.stringify(config)).pool, json.config.pool);
  assert.match(
    client.config.tls?.key ?? "",
    /PRIVATE KEY s3cret/,
    "the config itself is unchanged",
  );
});

Deno.test("No generated password, token or query secret in any URL spelling appears in any output", async () => {
  const closed = new HttpClient();
  closed.close();
  const secret = fc.stringMatching(/^[A-Za-z0-9._~-]{4,12}$/).map((s) => `Zq${s}`);
  const name = fc.constantFrom("access_token", "API_KEY", "Sig", "x-goog-signature", "password")
    .chain((n) => fc.constantFrom(n, n.toUpperCase()));
  const spelling = fc.record({
    scheme: fc.constantFrom("http", "HTTP", "Https"),
    slashes: fc.constantFrom("//", "/", "", "\\\\", "/\\", "///"),
    around: fc.constantFrom("", " ", "\t", "\n ", "\u0000"),
    beforeAt: fc.constantFrom("", "\t", "\n"),
    user: fc.option(fc.constantFrom("ada", "a.b"), { nil: undefined }),
    password: secret,
    name,
    value: secret,
    first: fc.boolean(),
  });
  await fc.assert(
    fc.asyncProperty(spelling, async (s) => {
      const userInfo = s.user === undefined ? s.password : `${s.user}:${s.password}`;
      const pairs = [`${s.name}=${s.value}`, "page=2"];
      const query = (s.first ? pairs : pairs.reverse()).join("&");
      const url =
        `${s.around}${s.scheme}:${s.slashes}${userInfo}${s.beforeAt}@127.0.0.1/p?${query}${s.around}`;
      let request: HttpRequest;
      try {
        request = new HttpRequest("GET", url, { params: { [s.name]: s.value } });
      } catch (error) {
        // A control character or a blank at an end: refused, naming only its index.
        assert.match(String(error), /^TypeError: Invalid url: character /);
        return assertHidden(shown(error), [s.password, s.value]);
      }
      const { logger, lines } = recordingLogger();
      const context = new RequestContext(request);
      new LoggingRequestHook({ logger }).beforeRequest(request, context);
      const error = await closed.request(request).catch((e) => e);
      new LoggingErrorHook({ logger }).onError(error, context);
      const texts = [...shown(request), ...shown(error), ...lines.map(([, line]) => line)];
      assertHidden(texts, [s.password, s.value]);
    }),
    { numRuns: 300 },
  );
});
