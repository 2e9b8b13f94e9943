/**
 * Cookies, a proxy and a connection error, against servers this file starts
 * on 127.0.0.1 (nothing to install beyond Deno):
 *
 * 1. A cookie session with `withCookies()`: a login sets two cookies (read
 *    apart with `headerValues("set-cookie")`), later calls send them, a
 *    logout clears one; a client without a jar keeps nothing.
 * 2. `withProxy()` through a small embedded forward proxy that asks for
 *    credentials, the client's config shown with the password masked, and a
 *    `noProxy` host reached directly.
 * 3. A refused connection, whose error names its cause.
 *
 * Run it with `deno task example:network`. On Deno `withProxy()` needs
 * `--allow-env` for the proxy variables (Deno's HTTP client reads them
 * itself; the client checks they do not override the proxy it was given).
 *
 * @module
 */

import {
  ConnectionException,
  createClient,
  HttpClient,
  HttpClientConfigBuilder,
} from "@fetchline/fetchline";

/** What the API saw of a call: the `Cookie` header, and the `Via` a proxy adds. */
interface Seen {
  cookie: string | null;
  via: string | null;
}

/**
 * A small API: `POST /login` sets a session cookie and a preference cookie,
 * `POST /logout` clears the session (`Max-Age=0`), and any other path
 * answers with what the request carried, so the output shows the server's
 * view of each call.
 */
function startApi() {
  let sessions = 0;
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === "/login") {
      const headers = new Headers();
      headers.append("Set-Cookie", `session=s${++sessions}; Path=/; HttpOnly; SameSite=Lax`);
      headers.append("Set-Cookie", "theme=dark; Path=/; Max-Age=3600");
      return new Response("Welcome\n", { headers });
    }
    if (pathname === "/logout") {
      return new Response("Bye\n", { headers: { "Set-Cookie": "session=; Path=/; Max-Age=0" } });
    }
    const seen: Seen = { cookie: request.headers.get("cookie"), via: request.headers.get("via") };
    return Response.json(seen);
  });
}

// Headers that concern one connection, or the proxy itself: never forwarded.
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-authorization", "proxy-connection", "host"];

/**
 * A demo forward proxy for http, not a real one (no CONNECT, so no https; no
 * access rules; no `Connection`-listed headers): it checks the Basic
 * credentials of `Proxy-Authorization`, takes the absolute-form target
 * (`GET http://host:port/path`, which `Deno.serve` gives as `request.url`),
 * forwards the request with `fetch()`, adds `Via`, and records each URL it
 * relayed. A request that loops back to it arrives without credentials and
 * ends there with a 407.
 */
function startDemoProxy(username: string, password: string) {
  const expected = `Basic ${btoa(`${username}:${password}`)}`;
  const upstream = Deno.createHttpClient({});
  const relayed: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    if (request.headers.get("proxy-authorization") !== expected) {
      return new Response("Proxy credentials required\n", {
        status: 407,
        headers: { "Proxy-Authenticate": 'Basic realm="demo proxy"' },
      });
    }
    const headers = new Headers(request.headers);
    for (const name of HOP_BY_HOP) headers.delete(name);
    headers.set("Via", "1.1 demo-proxy");
    relayed.push(request.url);
    try {
      const { method, body } = request;
      const init = { method, headers, body, redirect: "manual", client: upstream } as const;
      const response = await fetch(request.url, init);
      return new Response(response.body, response);
    } catch {
      return new Response("Bad gateway\n", { status: 502 });
    }
  });
  return {
    port: server.addr.port,
    relayed,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      upstream.close();
    },
  };
}

/** Logs in, calls, logs out and calls again, with a jar; then once without one. */
async function cookieSession(origin: string, log: (line: string) => void): Promise<void> {
  const builder = new HttpClientConfigBuilder().withBaseUrl(origin).withCookies();
  await using client = new HttpClient(builder.build());
  const me = async (http: HttpClient) => (await http.get("/me")).json() as Seen;

  const login = await client.post("/login");
  // Several Set-Cookie lines cannot be joined with commas: headerValues() keeps them apart.
  const lines = login.headerValues("set-cookie");
  log(`POST /login    ${login.statusCode}, ${lines.length} Set-Cookie lines:`);
  for (const line of lines) log(`                 ${line}`);
  log(`GET  /me       the server saw Cookie: ${(await me(client)).cookie}`);
  const logout = await client.post("/logout");
  log(`POST /logout   ${logout.statusCode}, Set-Cookie: ${logout.header("set-cookie")}`);
  log(`GET  /me       the server saw Cookie: ${(await me(client)).cookie}`);

  // Off by default: a client shared by many users must not send one user's
  // session with another's calls.
  await using plain = createClient(origin);
  await plain.post("/login");
  log(`Without withCookies(), after a login: Cookie: ${(await me(plain)).cookie ?? "(none)"}`);
}

/** Calls through the proxy, to a noProxy host, and with a wrong password. */
async function throughProxy(
  proxy: { port: number },
  origins: { outside: string; intranet: string },
  log: (line: string) => void,
): Promise<void> {
  const proxyAt = (password: string) => `http://demo:${password}@127.0.0.1:${proxy.port}`;
  const noProxy = [new URL(origins.intranet).host]; // a host with its port: that port only
  const builder = new HttpClientConfigBuilder().withProxy(proxyAt(PASSWORD), { noProxy });
  await using client = new HttpClient(builder.build());
  const { config } = JSON.parse(JSON.stringify(client));
  log(`JSON.stringify(client) shows the proxy as ${JSON.stringify(config.proxy)}`);

  for (const [name, origin] of Object.entries(origins)) {
    const seen = (await client.get(`${origin}/whoami`)).json() as Seen;
    const route = seen.via === null ? "direct (noProxy)" : `through the proxy (Via: ${seen.via})`;
    log(`GET ${name.padEnd(8)} ${route}`);
  }

  // No retries: the proxy's refusal is a ConnectionException, which a GET would try again.
  const wrong = new HttpClientConfigBuilder().withProxy(proxyAt("wrong-password"))
    .withRetry({ maxRetries: 0 });
  await using refused = new HttpClient(wrong.build());
  try {
    await refused.get(`${origins.outside}/whoami`);
  } catch (error) {
    if (!(error instanceof ConnectionException)) throw error;
    log(`GET outside  with a wrong proxy password: ${error.message}`);
  }
}

/** A call to a port nothing listens on: the error says the connection was refused. */
async function refusedConnection(log: (line: string) => void): Promise<void> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  // No retries: a refused connection would otherwise be tried again after a backoff.
  const builder = new HttpClientConfigBuilder().withRetry({ maxRetries: 0 });
  await using client = new HttpClient(builder.build());
  try {
    await client.get(`http://127.0.0.1:${listener.addr.port}/`);
  } catch (error) {
    if (!(error instanceof ConnectionException)) throw error;
    log(`${error.name}: ${error.message}`);
  }
}

const PASSWORD = "pr0xy-s3cret";

// Deno's HTTP client routes by these itself: set, they would take the calls
// to 127.0.0.1 through the machine's proxy, or around the demo's.
const PROXY_VARIABLES = [
  "HTTP_PROXY",
  "http_proxy",
  "HTTPS_PROXY",
  "https_proxy",
  "ALL_PROXY",
  "all_proxy",
  "NO_PROXY",
  "no_proxy",
];

/**
 * Runs the three parts in turn, or says which proxy variables of the
 * environment to unset first.
 *
 * @param log Where the lines go: `console.log` by default.
 * @returns The URLs the demo proxy relayed.
 */
export async function main(log: (line: string) => void = console.log): Promise<string[]> {
  const inherited = PROXY_VARIABLES.filter((name) => Deno.env.get(name) !== undefined);
  if (inherited.length > 0) {
    log(`This demo needs an environment without proxies: unset ${inherited.join(", ")}`);
    return [];
  }
  await using api = startApi();
  await using intranet = startApi();
  await using proxy = startDemoProxy("demo", PASSWORD);
  const outside = `http://127.0.0.1:${api.addr.port}`;

  log("1. Cookies: withCookies()");
  await cookieSession(outside, log);
  log("2. Proxy: withProxy()");
  await throughProxy(proxy, { outside, intranet: `http://127.0.0.1:${intranet.addr.port}` }, log);
  log("3. Connection errors name their cause");
  await refusedConnection(log);
  return proxy.relayed;
}

if (import.meta.main) await main();
