// Auth through the transport: Basic, API key and token auth against a real
// OAuth token endpoint on the fixture (the token fetch goes through the
// client's own transport), the refresh and resend on a 401, per-call
// credentials, and credentials dropped on a redirect to another origin.

const CLIENT_SECRET = "cl1ent-s3cret-value";
const PASSWORD = "p4ssw0rd-value";
const API_KEY = "ap1-k3y-value";

/** A browser's fetch hides a redirect from `redirect: "manual"`: the client refuses it there. */
const FOLLOWS_REDIRECTS = ["deno", "node", "bun", "workerd"];
const OPAQUE_REDIRECTS = "a page's fetch hides a redirect's status and Location";

export default function ({ lib, fixture, assert }) {
  const newRun = () => `r${Math.random().toString(36).slice(2)}${Date.now()}`;

  /** Runs `body` with a client on the fixture configured by `configure`, closed at its end. */
  async function withClient(configure, body) {
    const builder = new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withTimeout(5)
      .withRetry({ maxRetries: 0 });
    const http = new lib.HttpClient(configure(builder).build());
    try {
      return await body(http);
    } finally {
      await http.close();
    }
  }

  /** What the fixture's auth routes saw under `run`. */
  async function seen(run) {
    return await (await fetch(`${fixture.url}/auth/seen?run=${run}`)).json();
  }

  function tokenManager(run) {
    return new lib.TokenManager([
      lib.clientCredentialsStep({
        tokenUrl: `${fixture.url}/auth/token?run=${run}`,
        clientId: "app",
        clientSecret: CLIENT_SECRET,
      }),
    ]);
  }

  const echoed = async (response) => (await response).json().headers;

  return {
    "BasicAuthHook sends the UTF-8 Basic credentials, and a wrong password gets the 401": () =>
      withClient((b) => b.withAuthHook(new lib.BasicAuthHook("ada", PASSWORD)), async (http) => {
        const response = await http.get("/auth/basic");
        assert.equal(response.statusCode, 200);
        assert.equal(response.text, "welcome");
        const headers = await echoed(http.get("/auth/echo"));
        assert.equal(headers.authorization, `Basic ${btoa(`ada:${PASSWORD}`)}`);
      }).then(() =>
        withClient(
          (b) => b.withAuthHook(new lib.BasicAuthHook("ada", "wrong")),
          async (http) => assert.equal((await http.get("/auth/basic")).statusCode, 401),
        )
      ),
    "BasicAuthHook encodes a non-ASCII password as UTF-8": () =>
      withClient((b) => b.withAuthHook(new lib.BasicAuthHook("zoë", "pässwörd")), async (http) => {
        const headers = await echoed(http.get("/auth/echo"));
        const bytes = new TextEncoder().encode("zoë:pässwörd");
        assert.equal(headers.authorization, `Basic ${btoa(String.fromCharCode(...bytes))}`);
      }),
    "ApiKeyAuthHook sends its key under X-API-Key, or the header named": async () => {
      await withClient((b) => b.withAuthHook(new lib.ApiKeyAuthHook(API_KEY)), async (http) => {
        assert.equal((await http.get("/auth/key")).statusCode, 204);
      });
      await withClient(
        (b) => b.withAuthHook(new lib.ApiKeyAuthHook(API_KEY, { headerName: "X-Token" })),
        async (http) => {
          const headers = await echoed(http.get("/auth/echo"));
          assert.equal(headers["x-token"], API_KEY);
          assert.equal(headers["x-api-key"], undefined);
        },
      );
    },
    "credentials given per call are sent as Basic, and an auth hook leaves them as they are": () =>
      withClient((b) => b.withAuthHook(new lib.ApiKeyAuthHook(API_KEY)), async (http) => {
        assert.equal((await http.get("/auth/basic", { auth: ["ada", PASSWORD] })).statusCode, 200);
        const headers = await echoed(http.get("/auth/echo", { headers: { "x-api-key": "mine" } }));
        assert.equal(headers["x-api-key"], "mine");
      }),
    "TokenAuthHook fetches a token through the client's transport and reuses it while valid":
      () => {
        const run = newRun();
        return withClient(
          (b) => b.withTokenAuth({ tokenManager: tokenManager(run) }),
          async (http) => {
            assert.deepEqual((await http.get(`/auth/api?run=${run}`)).json(), { token: "tok-1" });
            assert.deepEqual((await http.get(`/auth/api?run=${run}`)).json(), { token: "tok-1" });
            assert.deepEqual(await seen(run), {
              fetches: 1,
              api: ["Bearer tok-1", "Bearer tok-1"],
            });
          },
        );
      },
    "TokenAuthHook refreshes and resends after a 401, without counting a retry": () => {
      const run = newRun();
      const attempts = [];
      return withClient(
        (b) =>
          b.withTokenAuth({ tokenManager: tokenManager(run) }).withRequestHook({
            beforeRequest: (request, context) => (attempts.push(context.attempt), request),
          }),
        async (http) => {
          assert.equal((await http.get(`/auth/api?run=${run}`)).statusCode, 200);
          await (await fetch(`${fixture.url}/auth/revoke?run=${run}`)).text();
          const response = await http.get(`/auth/api?run=${run}`);
          assert.deepEqual(response.json(), { token: "tok-2" });
          assert.deepEqual(attempts, [0, 0]);
          assert.deepEqual(await seen(run), {
            fetches: 2,
            api: ["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"],
          });
        },
      );
    },
    "TokenAuthHook returns a 401 that persists after one refresh, with no loop": () => {
      const run = newRun();
      const refused = new lib.TokenManager([{
        name: "stale",
        fetch: () => Promise.resolve(new lib.TokenData({ accessToken: "never-valid" })),
      }]);
      return withClient((b) => b.withTokenAuth({ tokenManager: refused }), async (http) => {
        const response = await http.get(`/auth/api?run=${run}`);
        assert.equal(response.statusCode, 401);
        assert.equal(response.text, "expired");
        assert.deepEqual((await seen(run)).api, ["Bearer never-valid", "Bearer never-valid"]);
      });
    },
    "A token endpoint that refuses the client fails the call with AuthenticationException": () => {
      const run = newRun();
      const wrong = new lib.TokenManager([
        lib.clientCredentialsStep({
          tokenUrl: `${fixture.url}/auth/token?run=${run}`,
          clientId: "app",
          clientSecret: "not-the-secret",
        }),
      ]);
      return withClient((b) => b.withTokenAuth({ tokenManager: wrong }), async (http) => {
        const error = await assert.rejects(
          http.get(`/auth/api?run=${run}`),
          lib.AuthenticationException,
          /status 401 \(invalid_client\)$/,
        );
        assert.ok(!error.message.includes("not-the-secret"), error.message);
        assert.deepEqual((await seen(run)).api, [], "the API saw no request");
      });
    },
    "A redirect to another origin drops Authorization, Cookie and the API key": {
      runtimes: FOLLOWS_REDIRECTS,
      reason: OPAQUE_REDIRECTS,
      run: () =>
        withClient((b) => b.withAuthHook(new lib.ApiKeyAuthHook(API_KEY)), async (http) => {
          const to = `${fixture.otherUrl}/auth/echo`;
          const response = await http.get("/auth/redirect", {
            params: { to },
            headers: { Authorization: "Bearer mine", Cookie: "sid=1", "X-Plain": "kept" },
          });
          assert.equal(response.url, to);
          const { headers } = response.json();
          for (const name of ["authorization", "cookie", "x-api-key"]) {
            assert.equal(headers[name], undefined, name);
          }
          assert.equal(headers["x-plain"], "kept");
        }),
    },
    "A redirect within the origin keeps the credentials": {
      runtimes: FOLLOWS_REDIRECTS,
      reason: OPAQUE_REDIRECTS,
      run: () =>
        withClient((b) => b.withAuthHook(new lib.BasicAuthHook("ada", PASSWORD)), async (http) => {
          const response = await http.get("/auth/redirect", { params: { to: "/auth/basic" } });
          assert.equal(response.statusCode, 200);
          assert.equal(response.text, "welcome");
        }),
    },
    "A 401 from another origin reached by a redirect causes no token refresh": {
      runtimes: FOLLOWS_REDIRECTS,
      reason: OPAQUE_REDIRECTS,
      run: () => {
        const run = newRun();
        return withClient(
          (b) => b.withTokenAuth({ tokenManager: tokenManager(run) }),
          async (http) => {
            const to = `${fixture.otherUrl}/auth/api?run=${run}`;
            const response = await http.get("/auth/redirect", { params: { to } });
            assert.equal(response.statusCode, 401);
            assert.deepEqual(await seen(run), { fetches: 1, api: [""] }, "no token, no refresh");
          },
        );
      },
    },
  };
}
