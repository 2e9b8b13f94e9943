// What a browser decides for the page, not the client: CORS, credentials,
// and how a call it cut short ends. tests/runtimes/browser.mjs runs these
// against the fixture's `/cors/` routes (scripts/cors_routes.ts), which log
// every request they get, so a check can tell what the browser sent from
// what it let the page read.

/** The words a browser's fetch failure is named with: it does not say why it failed. */
const BLOCKED = "refused, unreachable or blocked by CORS";

function check(condition, message) {
  if (!condition) throw new Error(message);
}

async function rejectsWith(promise, type) {
  try {
    await promise;
  } catch (error) {
    if (error?.name === type.name && error instanceof type) return error;
    throw new Error(`Expected ${type.name}, got ${error?.name}: ${error?.message}`);
  }
  throw new Error(`Expected ${type.name}, got no error`);
}

/** The fixture's log of the requests `path` got: `{ method, asked, authorization, cookie }`. */
async function seen(url, path) {
  const response = await fetch(`${url}/cors/seen?${new URLSearchParams({ path })}`);
  return await response.json();
}

/** Runs `body` with a client on `url`, configured by `configure`, closed at its end. */
async function withClient(lib, url, configure, body) {
  const builder = new lib.HttpClientConfigBuilder().withBaseUrl(url).withTimeout(5);
  const http = new lib.HttpClient(configure(builder).build());
  try {
    return await body(http);
  } finally {
    await http.close();
  }
}

/** The checks; `url` is the fixture's, on another origin than the page. */
export function cors(lib, { url }) {
  const plain = (body) => withClient(lib, url, (builder) => builder, body);
  return {
    "a response without Access-Control-Allow-Origin is a connection failure, retried as one": () =>
      plain(async (http) => {
        const path = "/cors/no-allow-origin";
        const error = await rejectsWith(http.get(path), lib.ConnectionException);
        check(error.message.includes(BLOCKED), error.message);
        // The browser sent each attempt and let the page read none: 1 + 2 retries.
        const methods = (await seen(url, path)).map((entry) => entry.method).join(" ");
        check(methods === "GET GET GET", `the server got ${methods}`);
      }),
    "a refused preflight fails the call before its request is sent": () =>
      plain(async (http) => {
        const path = "/cors/refused-preflight";
        const call = http.get(path, { headers: { "x-custom": "1" } });
        const error = await rejectsWith(call, lib.ConnectionException);
        check(error.message.includes(BLOCKED), error.message);
        const methods = (await seen(url, path)).map((entry) => entry.method).join(" ");
        check(methods === "OPTIONS OPTIONS OPTIONS", `the server got ${methods}`);
      }),
    "Authorization is sent after a preflight the server allows": () =>
      withClient(
        lib,
        url,
        (builder) => builder.withAuthHook(new lib.BasicAuthHook("ada", "pw")),
        async (http) => {
          const path = "/cors/preflighted";
          const response = await http.get(path);
          check(response.json().authorization === `Basic ${btoa("ada:pw")}`, response.text);
          const [preflight, sent, ...more] = await seen(url, path);
          check(preflight?.method === "OPTIONS", `first ${preflight?.method}`);
          check(/\bauthorization\b/.test(preflight.asked ?? ""), `asked ${preflight.asked}`);
          check(sent?.method === "GET" && more.length === 0, `then ${sent?.method}`);
        },
      ),
    "close() ends a call in flight with HttpClientException": async () => {
      const http = lib.createClient(url);
      const call = http.get("/cors/held");
      // Closed once the server has the request: up to 5 s.
      for (let i = 0; i < 250 && (await seen(url, "/cors/held")).length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await http.close();
      await rejectsWith(call, lib.HttpClientException);
    },
    "a buffered body cut by its timeout is a TimeoutException": () =>
      withClient(lib, url, (builder) => builder.withRetry({ maxRetries: 0 }), async (http) => {
        await rejectsWith(http.get("/cors/slow-body", { timeout: 0.3 }), lib.TimeoutException);
      }),
    "a streamed body cut by its read timeout is a TimeoutException": () =>
      plain(async (http) => {
        const response = await http.stream("GET", "/cors/slow-body", { readTimeout: 0.3 });
        check(response.statusCode === 200, `status ${response.statusCode}`);
        const error = await rejectsWith(response.read(), lib.TimeoutException);
        check(error.message.includes("(readTimeout)"), error.message);
      }),
    "the page's cookies go cross-origin only with a fetch that includes credentials": async () => {
      const path = "/cors/credentials";
      document.cookie = "page=p1; path=/";
      try {
        // The browser's fetch defaults to credentials "same-origin".
        const plainCookie = await plain(async (http) => (await http.get(path)).json().cookie);
        check(plainCookie === null, `cookie sent: ${plainCookie}`);
        const including = (input, init) => fetch(input, { ...init, credentials: "include" });
        const sent = await withClient(lib, url, (b) => b.withFetch(including), async (http) => {
          return (await http.get(path)).json().cookie;
        });
        check(sent === "page=p1", `cookie with credentials: ${sent}`);
      } finally {
        document.cookie = "page=; path=/; max-age=0";
      }
    },
  };
}
