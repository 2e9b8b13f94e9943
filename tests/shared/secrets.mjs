// Secrets: with every logging option on, a whole auth flow over the wire
// (token fetch, 401 and refresh, Basic, API key, a session cookie, per-call
// and URL credentials) and its failures (a timeout, a refused connection, a
// failing token endpoint) leave no secret in any log line, error message,
// String(), JSON.stringify(), or console.log() view (Deno.inspect on Deno,
// util.inspect on Node and Bun; a page and workerd have no such function, so
// there the other views are checked).

const CLIENT_SECRET = "cl1ent-s3cret";
const PASSWORD = "p4ssw0rd-s3cret";
const API_KEY = "ap1-k3y-s3cret";
const SESSION = "s3ssion-s3cret";
const CALLER_TOKEN = "c4ller-t0ken-s3cret";
const URL_PASSWORD = "url-p4ss-s3cret";
const QUERY_TOKEN = "qu3ry-t0ken-s3cret";
/** Every access token issued starts with this. */
const TOKEN = "acc3ss-t0ken-";
const REFRESH_TOKEN = "r3fresh-t0ken-s3cret";

/** The secrets, and the encodings in which one could leak. */
const SECRETS = [
  CLIENT_SECRET,
  PASSWORD,
  API_KEY,
  SESSION,
  CALLER_TOKEN,
  URL_PASSWORD,
  QUERY_TOKEN,
  TOKEN,
  REFRESH_TOKEN,
  btoa(`app:${CLIENT_SECRET}`),
  btoa(`ada:${PASSWORD}`),
];

/** A browser's fetch never shows a response's Set-Cookie to the page. */
const HIDES_SET_COOKIE = ["chromium", "firefox"];

/** The runtime's console.log() view of a value, where the runtime has one to call. */
async function inspector(runtime) {
  if (runtime === "deno") return (value) => globalThis.Deno.inspect(value, { depth: 10 });
  if (runtime === "node" || runtime === "bun") {
    // A name in a variable, so a page or workerd never resolves it.
    const name = "node:util";
    const { inspect } = await import(name);
    return (value) => inspect(value, { depth: 10 });
  }
  return undefined;
}

export default function ({ lib, fixture, runtime, assert }) {
  const newRun = () => `r${Math.random().toString(36).slice(2)}${Date.now()}`;

  /** Every text a value can be shown as, down an error's cause chain. */
  async function textsOf(values) {
    const inspect = await inspector(runtime);
    const texts = [];
    for (const value of values) {
      texts.push(String(value), JSON.stringify(value) ?? "");
      if (inspect !== undefined) texts.push(inspect(value));
      for (let e = value; e instanceof Error; e = e.cause) {
        texts.push(e.message, String(e), JSON.stringify(e) ?? "");
      }
    }
    return texts;
  }

  async function assertNoSecret(lines, values) {
    const texts = [...lines.map(([, line]) => line), ...await textsOf(values)];
    for (const secret of SECRETS) {
      const leak = texts.find((text) => text.includes(secret));
      assert.equal(leak, undefined, `${secret} leaked`);
    }
  }

  /** Logs with every option on into `lines`, and makes clients that do. */
  function observed() {
    const lines = [];
    const at = (level) => (line) => void lines.push([level, line]);
    const logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
    const clients = [];
    const client = (baseUrl, auth, timeout = 5) => {
      const builder = new lib.HttpClientConfigBuilder()
        .withBaseUrl(baseUrl)
        .withTimeout(timeout)
        .withRetry({ maxRetries: 1, backoff: 0.001 })
        .withLogging({ logger, logHeaders: true, logBody: true });
      if (auth !== undefined) builder.withAuthHook(auth);
      const made = new lib.HttpClient(builder.build());
      clients.push(made);
      return made;
    };
    const closeAll = () => Promise.all(clients.map((made) => made.close()));
    return { lines, client, clients, closeAll };
  }

  async function failure(call) {
    try {
      await call;
    } catch (error) {
      return error;
    }
    throw new Error("Expected the call to fail");
  }

  function tokenManager(tokenUrl, credentialsIn = "header", timeout = 5) {
    return new lib.TokenManager([
      lib.clientCredentialsStep({
        tokenUrl,
        clientId: "app",
        clientSecret: CLIENT_SECRET,
        credentialsIn,
        timeout,
      }),
    ]);
  }

  return {
    "raiseForStatus() names the server's reason from a problem, a JSON or a text body, never the credentials it quotes back":
      async () => {
        const { client, closeAll } = observed();
        try {
          const keyed = client(fixture.url, new lib.ApiKeyAuthHook(API_KEY));
          const sent = { headers: { Authorization: `Bearer ${CALLER_TOKEN}` } };
          const errors = [];
          for (const type of ["problem", "json", "text"]) {
            const response = await keyed.get(`/secrets/error-body?type=${type}`, sent);
            assert.equal(response.statusCode, 401);
            assert.ok(response.text.includes(API_KEY), "the body holds the key");
            errors.push(await failure(Promise.resolve().then(() => response.raiseForStatus())));
          }
          const [problem, json, text] = errors;
          assert.ok(problem instanceof lib.HttpStatusException);
          assert.equal(
            problem.message,
            `Client error (status 401, "Key revoked: Key *** is revoked; sent Bearer ***"): GET ${fixture.url}/secrets/error-body?type=problem`,
          );
          assert.equal(problem.problem.title, "Key revoked");
          assert.equal(problem.problem.status, 401);
          assert.equal(problem.problem.key, API_KEY, "the problem is kept as sent");
          assert.match(
            json.message,
            /^Client error \(status 401, "Key \*\*\* is revoked; sent Bearer \*\*\*"\): GET /,
          );
          assert.equal(json.problem, undefined);
          assert.match(
            text.message,
            /^Client error \(status 401, "Key \*\*\* is revoked; sent Bearer \*\*\*"\): GET /,
          );
          // The log lines are not checked: logBody: true logs the bodies, as it was asked to.
          await assertNoSecret([], errors);
        } finally {
          await closeAll();
        }
      },
    "raiseForStatus() never quotes back a credential the call sent in its form, its JSON body or a Basic header":
      () => {
        const reasonOf = (request, type, body) => {
          const response = new lib.HttpResponse({
            statusCode: 401,
            headers: { "content-type": type },
            content: new TextEncoder().encode(body),
            elapsedMs: 1,
            url: request.url,
            request,
          });
          try {
            response.raiseForStatus();
          } catch (error) {
            return error.message;
          }
          assert.fail("no HttpStatusException");
        };
        const url = "http://127.0.0.1/login";
        const form = new lib.HttpRequest("POST", url, {
          data: { username: "ada", password: PASSWORD },
        });
        const json = new lib.HttpRequest("POST", url, {
          jsonData: { client: { id: "app", client_secret: CLIENT_SECRET } },
        });
        const basic = new lib.HttpRequest("GET", url, {
          headers: { Authorization: `Basic ${btoa(`ada:${PASSWORD}`)}` },
        });
        assert.equal(
          reasonOf(form, "text/plain", `wrong password ${PASSWORD} for ada`),
          `Client error (status 401, "wrong password *** for ada"): POST ${url}`,
        );
        assert.equal(
          reasonOf(json, "application/json", `{"error": "client ${CLIENT_SECRET} unknown"}`),
          `Client error (status 401, "client *** unknown"): POST ${url}`,
        );
        assert.equal(
          reasonOf(basic, "text/plain", `ada:${PASSWORD} refused`),
          `Client error (status 401, "ada:*** refused"): GET ${url}`,
        );
      },
    "no log line, error or view of token, Basic and API-key auth shows a secret": async () => {
      const run = newRun();
      const { lines, client, clients, closeAll } = observed();
      const errors = [];
      const responses = [];
      try {
        const api = client(
          fixture.url,
          new lib.TokenAuthHook(tokenManager(`${fixture.url}/secrets/token?run=${run}`)),
        );
        responses.push(await api.get(`/secrets/api?run=${run}`));
        assert.equal(responses[0].statusCode, 200);
        await (await fetch(`${fixture.url}/secrets/revoke?run=${run}`)).text();
        responses.push(await api.get(`/secrets/api?run=${run}`));
        assert.equal(responses[1].statusCode, 200, "refreshed after the 401");
        errors.push(await failure(api.get("/secrets/slow", { timeout: 0.1 })));
        const basic = client(fixture.url, new lib.BasicAuthHook("ada", PASSWORD));
        responses.push(await basic.get("/secrets/basic"));
        assert.equal(responses.at(-1).statusCode, 200);
        const plain = client(fixture.url);
        responses.push(await plain.get("/secrets/basic", { auth: ["ada", PASSWORD] }));
        assert.equal(responses.at(-1).statusCode, 200);
        const inUrl = fixture.url.replace("//", `//ada:${URL_PASSWORD}@`);
        responses.push(
          await plain.get(`${inUrl}/secrets/basic`, { params: { token: QUERY_TOKEN } }),
        );
        responses.push(
          await plain.get(`/secrets/api?run=${run}`, {
            headers: { Authorization: `Bearer ${CALLER_TOKEN}` },
          }),
        );
        const keyed = client(fixture.url, new lib.ApiKeyAuthHook(API_KEY));
        responses.push(await keyed.get("/secrets/keyed"));
        assert.equal(responses.at(-1).statusCode, 200);
        const refused = client(fixture.refusedUrl, new lib.ApiKeyAuthHook(API_KEY));
        errors.push(
          await failure(refused.get("/keyed", { params: { access_token: QUERY_TOKEN } })),
        );
        assert.deepEqual(errors.map((e) => e?.constructor), [
          lib.TimeoutException,
          lib.ConnectionException,
        ]);
        const all = lines.map(([, line]) => line).join("\n");
        for (
          const shown of [
            '"Authorization":"***"',
            ...(HIDES_SET_COOKIE.includes(runtime) ? [] : ['"set-cookie":"***"']),
            "Response: 401",
            "Response Body: token expired",
            "Request failed (attempt 2/2): TimeoutException",
            "Request failed (attempt 2/2): ConnectionException",
          ]
        ) {
          assert.ok(all.includes(shown), `the logs show ${shown}`);
        }
        await assertNoSecret(lines, [...errors, ...responses, ...clients]);
      } finally {
        await closeAll();
      }
    },
    "a failing token endpoint shows no secret in logs or errors, however it fails": async () => {
      const run = newRun();
      const { lines, client, closeAll } = observed();
      const endpoints = [
        [`${fixture.url}/secrets/api?run=${run}`, /failed: status 401/],
        [`${fixture.refusedUrl}/token`, /failed: it threw ConnectionException$/],
        [`${fixture.url}/secrets/slow`, /failed: it threw TimeoutException$/],
      ];
      const errors = [];
      try {
        for (const credentialsIn of ["header", "body"]) {
          for (const [tokenUrl, message] of endpoints) {
            const api = client(
              fixture.url,
              // 0.9 s: the slow endpoint (2 s) still times out, the others have room under load.
              new lib.TokenAuthHook(tokenManager(tokenUrl, credentialsIn, 0.9)),
            );
            const error = await failure(api.get(`/secrets/api?run=${run}`));
            assert.equal(error.constructor, lib.AuthenticationException, String(error));
            assert.match(error.message, message);
            errors.push(error);
          }
        }
        await assertNoSecret(lines, errors);
      } finally {
        await closeAll();
      }
    },
    "a session cookie is masked in the log lines and every view of its response": {
      runtimes: ["deno", "node", "bun", "workerd"],
      reason: "a browser's fetch hides Set-Cookie from the page",
      run: async () => {
        const run = newRun();
        const { lines, client, closeAll } = observed();
        try {
          const api = client(
            fixture.url,
            new lib.TokenAuthHook(tokenManager(`${fixture.url}/secrets/token?run=${run}`)),
          );
          const response = await api.get(`/secrets/api?run=${run}`);
          assert.equal(
            response.header("set-cookie"),
            `sid=${SESSION}; Path=/`,
            "the caller reads it",
          );
          const view = JSON.parse(JSON.stringify(response));
          assert.equal(view.headers["set-cookie"], "***");
          assert.ok(lines.some(([, line]) => line.includes('"set-cookie":"***"')));
          await assertNoSecret(lines, [response, response.request]);
        } finally {
          await closeAll();
        }
      },
    },
    "a credential in the query of a failed call is masked in its message": async () => {
      const http = new lib.HttpClient(
        new lib.HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).build(),
      );
      try {
        const url = `${fixture.refusedUrl}/x?access_token=${QUERY_TOKEN}&page=2`;
        const error = await assert.rejects(http.get(url), lib.ConnectionException);
        assert.match(
          error.message,
          /: GET http:\/\/127\.0\.0\.1:\d+\/x\?access_token=\*\*\*&page=2$/,
        );
        await assertNoSecret([], [error]);
      } finally {
        await http.close();
      }
    },
  };
}
