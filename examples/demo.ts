/**
 * The fetchline demo: starts a small API on 127.0.0.1 and shows a client at
 * work on it, with the cURL command of a request it sent. Run it with
 * `deno task demo`.
 *
 * @module
 */

import {
  clientCredentialsStep,
  CorrelationIdHook,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
  TokenManager,
} from "../mod.ts";

/** Where the demo's lines go. */
type Log = (line: string) => void;

/** Starts the embedded API: users, a login form, an upload, a slow endpoint. */
function startDemoServer(log: Log) {
  const stop = new AbortController();
  const users = new Map<number, { id: number; name: string; role: string }>([
    [1, { id: 1, name: "Ada", role: "admin" }],
    [2, { id: 2, name: "Grace", role: "editor" }],
    [3, { id: 3, name: "Linus", role: "editor" }],
  ]);
  let flakyCalls = 0;
  let tokensIssued = 0;
  const liveTokens = new Map<string, number>(); // token → server-side expiry (ms)
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    async (request) => {
      const url = new URL(request.url);
      const route = `${request.method} ${url.pathname}`;
      if (route === "GET /api/users") {
        const role = url.searchParams.get("role");
        const found = [...users.values()].filter((user) => role === null || user.role === role);
        return Response.json({ page: Number(url.searchParams.get("page") ?? 1), users: found });
      }
      if (route === "POST /api/users") {
        const body = await request.json();
        const user = { id: users.size + 1, ...body };
        users.set(user.id, user);
        return Response.json(user, { status: 201 });
      }
      if (route === "POST /api/login") {
        const form = new URLSearchParams(await request.text());
        return Response.json({ welcome: form.get("username"), remember: form.get("remember") });
      }
      if (route === "POST /api/upload") {
        const file = (await request.formData()).get("document") as File;
        return Response.json({ name: file.name, bytes: file.size });
      }
      if (route === "GET /api/flaky") {
        flakyCalls++;
        return flakyCalls <= 2
          ? Response.json({ error: "overloaded" }, { status: 503 })
          : Response.json({ ok: true, after: flakyCalls });
      }
      if (route === "POST /oauth/token") {
        const expected = `Basic ${btoa("demo-app:demo-client-secret")}`;
        if (request.headers.get("authorization") !== expected) {
          return Response.json({ error: "invalid_client" }, { status: 401 });
        }
        const token = `demo-token-${++tokensIssued}`;
        log(`  [server] issued token #${tokensIssued}`);
        liveTokens.set(token, Date.now() + 300); // the server lets it live 0.3 s…
        // …but announces an hour, as servers that revoke tokens early do.
        return Response.json({ access_token: token, token_type: "Bearer", expires_in: 3600 });
      }
      if (route === "GET /api/account") {
        const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
        const expiry = liveTokens.get(token);
        if (expiry === undefined || Date.now() > expiry) {
          log("  [server] GET /api/account → 401: the token has expired");
          return Response.json({ error: "token expired" }, { status: 401 });
        }
        return Response.json({ account: "ada", tokensIssued });
      }
      if (route === "GET /api/events") {
        // A Server-Sent Events stream: one event per build step, a short pause between them.
        const steps = ["checkout", "compile", "test"];
        const encoder = new TextEncoder();
        const events = ReadableStream.from((async function* () {
          for (const [index, step] of steps.entries()) {
            await new Promise((resolve) => setTimeout(resolve, 50));
            yield encoder.encode(`event: step\nid: ${index + 1}\ndata: ${step}\n\n`);
          }
        })());
        return new Response(events, { headers: { "Content-Type": "text/event-stream" } });
      }
      if (route === "GET /api/slow") {
        await new Promise<void>((resolve) => {
          const id = setTimeout(resolve, 2000);
          stop.signal.addEventListener("abort", () => {
            clearTimeout(id);
            resolve();
          });
        });
        return Response.json({ late: true });
      }
      return Response.json({ error: `no route for ${route}` }, { status: 404 });
    },
  );
  return {
    port: server.addr.port,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await server.finished;
    },
  };
}

/**
 * Runs the demo.
 *
 * @param log Where the lines go: `console.log` by default.
 * @returns The cURL command of the JSON POST it sent.
 */
export async function main(log: Log = console.log): Promise<string> {
  const show = (step: string, detail: string) =>
    log(`\n▶ ${step}\n  ${detail.replaceAll("\n", "\n  ")}`);
  await using server = startDemoServer(log);
  const baseUrl = `http://127.0.0.1:${server.port}/api`;
  log(`fetchline demo: an API is listening on ${baseUrl}`);

  const config = new HttpClientConfigBuilder()
    .withBaseUrl(baseUrl)
    .withTimeout(5)
    .withHeaders({ Accept: "application/json" })
    .build();
  await using client = new HttpClient(config);

  const list = await client.get("/users/", { params: { role: "editor", page: 1 } });
  show(
    "GET with a base URL and params",
    `${list.request.method} ${list.url} → ${list.statusCode} in ${list.elapsedMs.toFixed(2)} ms\n` +
      `editors: ${list.json<{ users: { name: string }[] }>().users.map((u) => u.name).join(", ")}`,
  );

  const created = await client.post("users", { jsonData: { name: "Margaret", role: "admin" } });
  show(
    "POST a JSON body and read JSON back",
    `sent ${created.request.jsonText}\n← ${created.statusCode} ${created.text}`,
  );
  // response.request is the request as it was sent: absolute URL, default headers, timeout.
  const curl = created.request.toCurl();
  show("The same request as a cURL command (toCurl), to replay it in a shell", curl);

  const login = await client.post("/login", { data: { username: "ada", remember: true } });
  show("POST a form", `← ${login.statusCode} ${login.text}`);

  const thisFile = new URL(import.meta.url).pathname;
  const upload = await client.post("/upload", { files: { document: thisFile } });
  show("Upload a file from disk (multipart)", `${thisFile}\n← ${upload.statusCode} ${upload.text}`);

  const missing = await client.get("/reports/2026");
  if (missing.isClientError) {
    show(
      "A 404 is a response, not an exception",
      `isClientError: ${missing.isClientError}, status ${missing.statusCode}, body ${missing.text}`,
    );
  }

  try {
    await client.get("/slow", { timeout: 0.25 });
  } catch (error) {
    if (!(error instanceof TimeoutException)) throw error;
    show(
      "A slow endpoint against a 0.25 s timeout",
      `${error.name}: ${error.message}\n` +
        `instanceof HttpClientException: ${error instanceof HttpClientException}`,
    );
  }

  show(
    "Logging on, and a flaky endpoint that fails twice then succeeds",
    "the client retries by itself (idempotent methods; 408, 429, 5xx, timeouts, lost connections):",
  );
  // A client derived from the first one: its base URL, timeout and headers, its
  // pool, plus retries with short waits (the default base is 0.5 s) and logging.
  const logger = { debug: log, info: log, warn: log, error: log };
  const logged = client.extend((builder) =>
    builder
      .withRetry({ backoff: 0.05 })
      .withRequestHook(new CorrelationIdHook())
      .withLogging({ logHeaders: true, sensitiveKeys: ["X-Session"], logger })
  );
  const flaky = await logged.get("/flaky", {
    headers: { Authorization: "Bearer demo-secret-token", "X-Session": "s-123" },
  });
  logged.close();
  log(`  → ${flaky.statusCode} ${flaky.text} (secrets above are masked as ***)`);

  show(
    "Token auth that refreshes itself (OAuth 2.0 client credentials)",
    "the token endpoint issues short-lived tokens; the API answers 401 once one has expired:",
  );
  const secured = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(baseUrl)
      .withTokenAuth({
        tokenManager: new TokenManager([
          clientCredentialsStep({
            tokenUrl: `http://127.0.0.1:${server.port}/oauth/token`,
            clientId: "demo-app",
            clientSecret: "demo-client-secret",
          }),
        ]),
      })
      .withResponseHook({
        afterResponse(response) {
          log(
            `  ${response.request.method} ${
              new URL(response.url).pathname
            } → ${response.statusCode}`,
          );
          return response;
        },
      })
      .build(),
  );
  const first = await secured.get("/account");
  log(`  first call: ${first.text}`);
  await new Promise((resolve) => setTimeout(resolve, 400));
  const second = await secured.get("/account");
  log(`  after the token expired (a 401, a refresh, a resend): ${second.text}`);
  secured.close();

  const started = performance.now();
  await using events = await client.stream("GET", "/events", { readTimeout: 2 });
  show(
    "Stream Server-Sent Events as they arrive",
    `${events.statusCode} ${
      events.header("content-type")
    }, body unread (isStreamed: ${events.isStreamed})`,
  );
  for await (const event of events.events()) {
    const at = (performance.now() - started).toFixed(0);
    log(`  +${at} ms  ${event.event} #${event.id}: ${event.data}`);
  }

  log("\nDone: every request above went over a real socket to 127.0.0.1.");
  return curl;
}

if (import.meta.main) await main();
