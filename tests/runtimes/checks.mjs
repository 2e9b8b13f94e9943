// The checks of the npm package that any runtime with `fetch` can run, given
// the package's exports (`lib`: its main entry and `toCurl` from its utils)
// and a fixture server (`url`) that echoes each request as JSON
// ({ method, query, body, headers }), never answers `/slow`, answers `/missing`
// with a 404 and sets a cookie on `/login`. tests/runtimes/smoke.mjs runs
// them on Node, Bun and Deno, tests/runtimes/workerd.mjs inside workerd.

function check(condition, message) {
  if (!condition) throw new Error(message);
}

async function rejectsWith(promise, type) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof type) return error;
    throw new Error(`Expected ${type.name}, got ${error?.name}: ${error?.message}`);
  }
  throw new Error(`Expected ${type.name}, got no error`);
}

/** Runs `body` with a client configured by `configure`, closed at its end. */
async function withClient(lib, url, configure, body) {
  const builder = new lib.HttpClientConfigBuilder().withBaseUrl(url).withTimeout(5);
  const http = new lib.HttpClient(configure(builder).build());
  try {
    return await body(http);
  } finally {
    await http.close();
  }
}

/** The eight checks every runtime passes. */
export function checks(lib, { url, refusedUrl }) {
  const plain = (body) => withClient(lib, url, (builder) => builder, body);
  return {
    "GET with params": () =>
      plain(async (http) => {
        const response = await http.get("/users", { params: { page: 2, q: "a b" } });
        check(response.statusCode === 200, `status ${response.statusCode}`);
        check(response.json().query === "page=2&q=a+b", `query ${response.json().query}`);
      }),
    "JSON POST": () =>
      plain(async (http) => {
        const sent = (await http.post("/users", { jsonData: { name: "Ada", n: [1, 2] } })).json();
        check(sent.body === '{"name": "Ada", "n": [1, 2]}', `body ${sent.body}`);
        check(sent.headers["content-type"] === "application/json", "no JSON content type");
      }),
    "a 404 as a response": () =>
      plain(async (http) => {
        const response = await http.get("/missing");
        check(response.statusCode === 404 && !response.isSuccess, `status ${response.statusCode}`);
      }),
    "a timeout": () =>
      withClient(lib, url, (builder) => builder.withRetry({ maxRetries: 0 }), async (http) => {
        await rejectsWith(http.get("/slow", { timeout: 0.2 }), lib.TimeoutException);
      }),
    "a refused port": async () => {
      const http = lib.createClient(refusedUrl);
      try {
        await rejectsWith(http.get("/"), lib.ConnectionException);
      } finally {
        await http.close();
      }
    },
    "toCurl": () => {
      const request = new lib.HttpRequest("POST", `${url}/x`, { jsonData: { a: 1 } });
      const command = lib.toCurl(request);
      check(command === request.toCurl(), "toCurl() and request.toCurl() differ");
      check(command.startsWith("curl ") && command.includes(`${url}/x`), command);
    },
    "Basic auth": () =>
      withClient(
        lib,
        url,
        (builder) => builder.withAuthHook(new lib.BasicAuthHook("ada", "pw")),
        async (http) => {
          const sent = (await http.get("/private")).json().headers.authorization;
          check(sent === `Basic ${btoa("ada:pw")}`, `authorization ${sent}`);
        },
      ),
    "create and close": async () => {
      const http = lib.createClient(url);
      check((await http.get("/")).statusCode === 200, "no answer before close()");
      await http.close();
      await rejectsWith(http.get("/"), lib.HttpClientException);
    },
  };
}

/** A certificate's shape, enough for withTls() to accept it before build(). */
const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";

/** Checks that `build()` of `configure(builder)` throws a TypeError naming `runtime` and `why`. */
function refusedAtBuild(lib, runtime, configure, why) {
  try {
    configure(new lib.HttpClientConfigBuilder()).build();
  } catch (error) {
    check(error instanceof TypeError, `${error?.name}`);
    check(error.message.includes(runtime) && why.test(error.message), error.message);
    return;
  }
  throw new Error("build() accepted it");
}

/**
 * What a runtime without a pool cannot do fails at once, naming the runtime
 * (on Node and Deno the same calls are supported).
 */
export function limits(lib, { runtime }) {
  return {
    "a network policy is refused, naming the runtime and why": () =>
      refusedAtBuild(
        lib,
        runtime,
        (builder) => builder.withNetworkPolicy(),
        /^Invalid networkPolicy: .* cannot check the address a connection is made to .*needs Deno or Node$/,
      ),
    "a Unix socket is refused, naming the runtime": () =>
      refusedAtBuild(
        lib,
        runtime,
        (builder) => builder.withUnixSocket("/var/run/docker.sock"),
        /^Invalid unixSocket: .* cannot send over a Unix socket; it needs Deno or Node$/,
      ),
    "a proxy is refused, naming the runtime": () => {
      try {
        new lib.HttpClientConfigBuilder().withProxy("http://127.0.0.1:9").build();
      } catch (error) {
        check(error instanceof TypeError, `${error?.name}`);
        check(error.message.includes(runtime), error.message);
        return;
      }
      throw new Error("withProxy() was accepted");
    },
    "TLS options are refused, naming the runtime": () => {
      try {
        new lib.HttpClientConfigBuilder().withTls({ caCerts: [pem] }).build();
      } catch (error) {
        check(error instanceof TypeError, `${error?.name}`);
        check(error.message.includes(runtime), error.message);
        return;
      }
      throw new Error("withTls() was accepted");
    },
  };
}

/**
 * Where there is no file system (browsers, workerd), a file path fails at
 * once, naming the runtime (Node, Deno and Bun read it).
 */
export function noFiles(lib, { url, runtime }) {
  return {
    "a file path is refused, naming the runtime": () =>
      withClient(lib, url, (builder) => builder, async (http) => {
        const call = http.post("/", { files: { doc: "/etc/hostname" } });
        const error = await rejectsWith(call, TypeError);
        check(error.message.includes(runtime), error.message);
      }),
  };
}

/**
 * Where tough-cookie cannot be loaded (removed, or a runtime that resolves no
 * package name), the default cookie jar fails the call, naming the runtime:
 * it does not drop every cookie in silence.
 */
export function withoutToughCookie(lib, { url, runtime }) {
  return {
    "the default cookie jar without tough-cookie fails, naming the runtime": () =>
      withClient(lib, url, (b) => b.withCookies().withRetry({ maxRetries: 0 }), async (http) => {
        const error = await rejectsWith(http.get("/login"), TypeError);
        check(error.message.includes(runtime), error.message);
        check(error.message.includes("tough-cookie"), error.message);
        check(!error.message.includes("s3cr3t"), error.message);
      }),
  };
}

/** Runs `all` one after the other: a line per check, and how many failed. */
export async function run(all, label) {
  const lines = [];
  let failed = 0;
  for (const [name, body] of Object.entries(all)) {
    try {
      await body();
      lines.push(`ok ${label}: ${name}`);
    } catch (error) {
      failed++;
      lines.push(`not ok ${label}: ${name}: ${error?.message ?? error}`);
    }
  }
  lines.push(`${label}: ${Object.keys(all).length - failed} passed, ${failed} failed`);
  return { lines, failed };
}
