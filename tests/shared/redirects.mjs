// Redirects followed by the client itself, through each runtime's transport:
// the method and body each status keeps, the hop limit, and the credentials
// dropped on a hop to another origin. A browser's fetch hides a redirect
// from a page (an opaque response), so there the call fails instead.

import { FOLLOWS, HIDDEN } from "./runtimes.mjs";

export default function ({ lib, fixture, assert }) {
  const key = () => crypto.randomUUID();

  async function withClient(body, configure = (builder) => builder) {
    const builder = new lib.HttpClientConfigBuilder()
      .withBaseUrl(fixture.url)
      .withTimeout(10)
      .withRetry({ maxRetries: 0 });
    const http = new lib.HttpClient(configure(builder).build());
    try {
      return await body(http);
    } finally {
      await http.close();
    }
  }

  async function calls(http, k) {
    return (await http.get("/redirects/count", { params: { key: k } })).json().calls;
  }

  return {
    "301, 302 and 303 turn POST into GET without a body": {
      runtimes: FOLLOWS,
      reason: HIDDEN,
      run: () =>
        withClient(async (http) => {
          for (const status of [301, 302, 303]) {
            const response = await http.post("/redirects/to", {
              params: { status, to: "/redirects/landing" },
              jsonData: { a: 1 },
              headers: { "X-Keep": "k" },
            });
            const landed = response.json();
            assert.deepEqual([landed.method, landed.path, landed.body], [
              "GET",
              "/redirects/landing",
              "",
            ], `${status}`);
            assert.equal(landed.headers["content-type"], undefined, `${status}: content-type`);
            assert.equal(landed.headers["x-keep"], "k", `${status}: x-keep`);
            assert.equal(response.url, `${fixture.url}/redirects/landing`);
            assert.equal(response.request.method, "POST");
          }
        }),
    },
    "307 and 308 keep the method and the body": {
      runtimes: FOLLOWS,
      reason: HIDDEN,
      run: () =>
        withClient(async (http) => {
          for (const status of [307, 308]) {
            const landed = (await http.put("/redirects/to", {
              params: { status, to: "/redirects/landing" },
              jsonData: { b: 2 },
            })).json();
            assert.deepEqual([landed.method, landed.body], ["PUT", '{"b": 2}'], `${status}`);
            assert.equal(landed.headers["content-type"], "application/json", `${status}`);
          }
        }),
    },
    "301 keeps PUT, 302 and 303 turn it into GET, 303 keeps HEAD": {
      runtimes: FOLLOWS,
      reason: HIDDEN,
      run: () =>
        withClient(async (http) => {
          const to = "/redirects/landing";
          const kept =
            (await http.put("/redirects/to", { params: { status: 301, to }, jsonData: { a: 1 } }))
              .json();
          assert.deepEqual([kept.method, kept.body], ["PUT", '{"a": 1}']);
          for (const status of [302, 303]) {
            const changed =
              (await http.put("/redirects/to", { params: { status, to }, jsonData: { a: 1 } }))
                .json();
            assert.deepEqual([changed.method, changed.body], ["GET", ""], `${status}`);
          }
          const head = await http.head("/redirects/to", { params: { status: 303, to } });
          assert.equal(head.statusCode, 200);
          assert.equal(head.url, `${fixture.url}${to}`);
        }),
    },
    "301, 302, 307 and 308 keep QUERY and its body, 303 turns it into GET": {
      runtimes: FOLLOWS,
      reason: HIDDEN,
      run: () =>
        withClient(async (http) => {
          const to = "/redirects/landing";
          for (const status of [301, 302, 307, 308]) {
            const landed =
              (await http.query("/redirects/to", { params: { status, to }, jsonData: { q: 1 } }))
                .json();
            assert.deepEqual([landed.method, landed.body], ["QUERY", '{"q": 1}'], `${status}`);
          }
          const changed =
            (await http.query("/redirects/to", { params: { status: 303, to }, jsonData: { q: 1 } }))
              .json();
          assert.deepEqual([changed.method, changed.body], ["GET", ""]);
        }),
    },
    "20 redirects are followed, the 21st fails, and so does a loop": {
      runtimes: FOLLOWS,
      reason: HIDDEN,
      run: () =>
        withClient(async (http) => {
          const k = key();
          const response = await http.get("/redirects/chain", { params: { n: 20, key: k } });
          assert.equal(response.statusCode, 200);
          assert.equal(response.header("x-hops"), "21");
          assert.match(response.url, /\/redirects\/chain\?n=0&/);
          const over = key();
          await assert.rejects(
            http.get("/redirects/chain", { params: { n: 21, key: over } }),
            lib.HttpClientException,
            /^Too many redirects \(more than 20\): GET /,
          );
          assert.equal(await calls(http, over), 21);
          await assert.rejects(
            http.get("/redirects/loop"),
            lib.HttpClientException,
            /Too many redirects/,
          );
        }),
    },
    "withMaxRedirects() sets the limit, and 0 returns the 3xx itself": {
      runtimes: FOLLOWS,
      reason: HIDDEN,
      run: async () => {
        await withClient(async (http) => {
          await assert.rejects(
            http.get("/redirects/chain", { params: { n: 3, key: key() } }),
            lib.HttpClientException,
            /more than 2/,
          );
          assert.equal(
            (await http.get("/redirects/chain", { params: { n: 2, key: key() } })).statusCode,
            200,
          );
        }, (builder) => builder.withMaxRedirects(2));
        await withClient(async (http) => {
          const k = key();
          const response = await http.get("/redirects/to", {
            params: { status: 302, to: "/x", key: k },
          });
          assert.equal(response.statusCode, 302);
          assert.equal(response.header("location"), "/x");
          assert.equal(await calls(http, k), 1);
        }, (builder) => builder.withMaxRedirects(0));
      },
    },
    "a hop to another origin drops Authorization, Cookie and Proxy-Authorization": {
      runtimes: FOLLOWS,
      reason: HIDDEN,
      run: () =>
        withClient(async (http) => {
          const landed = (await http.get("/redirects/to", {
            params: { status: 302, to: `${fixture.otherUrl}/redirects/landing` },
            headers: {
              Authorization: "Bearer s3cr3t",
              Cookie: "a=b",
              "Proxy-Authorization": "p",
              "X-Plain": "1",
            },
          })).json();
          assert.equal(landed.headers["authorization"], undefined, "authorization");
          assert.equal(landed.headers["cookie"], undefined, "cookie");
          assert.equal(landed.headers["proxy-authorization"], undefined, "proxy-authorization");
          assert.equal(landed.headers["x-plain"], "1");
          const basic = (await http.get("/redirects/to", {
            params: { status: 307, to: `${fixture.otherUrl}/redirects/landing` },
            auth: ["u", "p"],
          })).json();
          assert.equal(basic.headers["authorization"], undefined, "auth: [u, p]");
          const same = (await http.get("/redirects/to", {
            params: { status: 302, to: "/redirects/landing" },
            headers: { Authorization: "Bearer kept" },
          })).json();
          assert.equal(same.headers["authorization"], "Bearer kept");
        }),
    },
    "a hop to another origin drops every credential header by the one definition, and keeps an excepted one":
      {
        runtimes: FOLLOWS,
        reason: HIDDEN,
        run: () =>
          withClient(async (http) => {
            const headers = {
              "X-Auth-Token": "t0ken",
              "Private-Token": "pr1vate",
              "X-Vault-Token": "v4ult",
              "X-Tenant-Pin": "p1n",
              "Idempotency-Key": "idem-1",
              "X-Plain": "1",
            };
            const landed = (await http.get("/redirects/to", {
              params: { status: 307, to: `${fixture.otherUrl}/redirects/landing` },
              headers,
            })).json();
            for (const name of ["x-auth-token", "private-token", "x-vault-token", "x-tenant-pin"]) {
              assert.equal(landed.headers[name], undefined, name);
            }
            assert.equal(landed.headers["idempotency-key"], "idem-1");
            assert.equal(landed.headers["x-plain"], "1");
            const same = (await http.get("/redirects/to", {
              params: { status: 302, to: "/redirects/landing" },
              headers,
            })).json();
            assert.equal(same.headers["x-vault-token"], "v4ult");
            assert.equal(same.headers["x-tenant-pin"], "p1n");
          }, (builder) =>
            builder.withCredentialHeaders({ add: ["X-Tenant-Pin"], except: ["Idempotency-Key"] })),
      },
    "the auth hook is applied on the same origin and not on another": {
      runtimes: FOLLOWS,
      reason: HIDDEN,
      run: () =>
        withClient(async (http) => {
          const there = (await http.get("/redirects/to", {
            params: { status: 302, to: `${fixture.otherUrl}/redirects/landing` },
          })).json();
          assert.equal(there.headers["authorization"], undefined);
          const here = (await http.get("/redirects/to", {
            params: { status: 302, to: "/redirects/landing" },
          })).json();
          assert.equal(here.headers["authorization"], `Basic ${btoa("ada:pw")}`);
        }, (builder) => builder.withAuthHook(new lib.BasicAuthHook("ada", "pw"))),
    },
    "a redirect fails in a browser, naming it, and is not retried": {
      runtimes: ["chromium", "firefox"],
      reason: "only a browser's fetch hides a redirect",
      run: () =>
        withClient(async (http) => {
          const k = key();
          await assert.rejects(
            http.get("/redirects/to", {
              params: { status: 302, to: "/redirects/landing", key: k },
            }),
            TypeError,
            /^Redirect not followed: a browser hides a redirect's status/,
          );
          assert.equal(await calls(http, k), 1);
        }, (builder) => builder.withRetry({ maxRetries: 2, sleep: () => Promise.resolve() })),
    },
  };
}
