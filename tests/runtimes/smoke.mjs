// Eight checks of the npm package on whichever runtime runs this file (Node,
// Bun, Deno), against a node:http server on 127.0.0.1 that every one of them
// provides. scripts/test_runtimes.ts installs the packed package next to this
// file, so `@fetchline/fetchline` resolves through the package's `exports`
// conditions exactly as a user's import does. Plain ESM and no test runner:
// one line per check, and the exit code is 1 on any failure. Given the
// argument `without-tough-cookie` (the package removed, as a browser without
// a bundler cannot resolve it), it checks the default cookie jar instead.

import { createServer } from "node:http";
import {
  BasicAuthHook,
  ConnectionException,
  createClient,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  TimeoutException,
} from "@fetchline/fetchline";
import { toCurl } from "@fetchline/fetchline/utils";

const runtime = globalThis.Bun !== undefined
  ? "Bun"
  : globalThis.Deno !== undefined
  ? "Deno"
  : "Node";

const args = globalThis.Deno?.args ?? globalThis.process.argv.slice(2);

/**
 * Starts the fixture: `/slow` never answers, `/missing` is a 404, `/login`
 * sets a cookie, anything else echoes.
 */
async function startServer() {
  const requests = [];
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const url = new URL(req.url, "http://127.0.0.1");
    const body = new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
    requests.push({ method: req.method, query: url.search.slice(1), headers: req.headers, body });
    if (url.pathname === "/slow") return;
    const cookie = url.pathname === "/login" ? { "set-cookie": "sid=s3cr3t" } : {};
    res.writeHead(url.pathname === "/missing" ? 404 : 200, {
      "content-type": "application/json",
      ...cookie,
    });
    res.end(JSON.stringify({ method: req.method, query: url.search.slice(1), body }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${server.address().port}`, requests, close };
}

/** A port nothing listens on: one the system gave a server that is closed again. */
async function refusedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(() => resolve()));
  return port;
}

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

const server = await startServer();
const client = (configure = (builder) => builder) =>
  new HttpClient(
    configure(new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)).build(),
  );

const checks = {
  "GET with params": async (http) => {
    const response = await http.get("/users", { params: { page: 2, q: "a b" } });
    check(response.statusCode === 200, `status ${response.statusCode}`);
    check(response.json().query === "page=2&q=a+b", `query ${response.json().query}`);
  },
  "JSON POST": async (http) => {
    const response = await http.post("/users", { jsonData: { name: "Ada", n: [1, 2] } });
    const sent = server.requests.at(-1);
    check(response.json().body === '{"name": "Ada", "n": [1, 2]}', `body ${sent.body}`);
    check(sent.headers["content-type"] === "application/json", "no JSON content type");
  },
  "a 404 as a response": async (http) => {
    const response = await http.get("/missing");
    check(response.statusCode === 404 && !response.isSuccess, `status ${response.statusCode}`);
  },
  "a timeout": async () => {
    const http = client((builder) => builder.withRetry({ maxRetries: 0 }));
    try {
      await rejectsWith(http.get("/slow", { timeout: 0.2 }), TimeoutException);
    } finally {
      await http.close();
    }
  },
  "a refused port": async () => {
    const http = createClient(`http://127.0.0.1:${await refusedPort()}`);
    try {
      await rejectsWith(http.get("/"), ConnectionException);
    } finally {
      await http.close();
    }
  },
  "toCurl": () => {
    const request = new HttpRequest("POST", `${server.url}/x`, { jsonData: { a: 1 } });
    const command = toCurl(request);
    check(command === request.toCurl(), "toCurl() and request.toCurl() differ");
    check(command.startsWith("curl ") && command.includes(`${server.url}/x`), command);
  },
  "Basic auth": async () => {
    const http = client((builder) => builder.withAuthHook(new BasicAuthHook("ada", "pw")));
    try {
      await http.get("/private");
      const sent = server.requests.at(-1).headers.authorization;
      check(sent === `Basic ${btoa("ada:pw")}`, `authorization ${sent}`);
    } finally {
      await http.close();
    }
  },
  "create and close": async () => {
    const http = createClient(server.url);
    check((await http.get("/")).statusCode === 200, "no answer before close()");
    await http.close();
    await rejectsWith(http.get("/"), HttpClientException);
  },
};

// What a runtime without a pool or a file system cannot do fails at once,
// naming the runtime; on Node and Deno the same calls are supported.
const limits = {
  "a proxy is refused, naming the runtime": () => {
    try {
      new HttpClientConfigBuilder().withProxy("http://127.0.0.1:9").build();
    } catch (error) {
      check(error instanceof TypeError, `${error?.name}`);
      check(error.message.includes(runtime), error.message);
      return;
    }
    throw new Error("withProxy() was accepted");
  },
  "a file path is refused, naming the runtime": async (http) => {
    const error = await rejectsWith(http.post("/", { files: { doc: "/etc/hostname" } }), Error);
    check(error.message.includes(runtime), error.message);
  },
};

// Not dropped in silence: every cookie would be.
const withoutToughCookie = {
  "the default cookie jar without tough-cookie fails, naming the runtime": async () => {
    const http = client((builder) => builder.withCookies().withRetry({ maxRetries: 0 }));
    try {
      const error = await rejectsWith(http.get("/login"), TypeError);
      check(error.message.includes(runtime), error.message);
      check(error.message.includes("tough-cookie"), error.message);
      check(!error.message.includes("s3cr3t"), error.message);
    } finally {
      await http.close();
    }
  },
};

const http = client();
let failed = 0;
const all = args[0] === "without-tough-cookie"
  ? withoutToughCookie
  : { ...checks, ...(runtime === "Bun" ? limits : {}) };
const where = import.meta.resolve("@fetchline/fetchline");
const build = /\/web\/mod\.js$/.test(where) ? "web" : "node";
const expected = runtime === "Node" ? "node" : "web";
try {
  for (
    const [name, run] of [
      ["the build", () => check(build === expected, where)],
      ...Object.entries(all),
    ]
  ) {
    try {
      await run(http);
      console.log(`ok ${runtime} (${build} build): ${name}`);
    } catch (error) {
      failed++;
      console.log(`not ok ${runtime} (${build} build): ${name}: ${error?.message ?? error}`);
    }
  }
} finally {
  await http.close();
  await server.close();
}
console.log(`${runtime}: ${Object.keys(all).length + 1 - failed} passed, ${failed} failed`);
if (failed > 0) globalThis.process?.exit?.(1);
