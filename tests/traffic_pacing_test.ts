// serverPacing() (API.md "Traffic control") against real servers: what a
// 429 or 503 with Retry-After, or spent quota in rate-limit headers, keeps
// from reaching the server, and for how long, counted and timed at the
// server. The real waits are of a second; the long pauses are read through
// `maxWaitSeconds`, which fails a call at once with the wait it would have had.

import assert from "node:assert/strict";
import { HttpClientException, TimeoutException } from "../mod.ts";
import { RateLimitedException, serverPacing, type ServerPacingOptions } from "../traffic.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { clientWith, exitWithin, rejectsWith, settles, throwsAtOnce } from "./helpers.ts";

/**
 * Routes `/paced` of `server`: the first request is answered `status` with
 * `headers`, every later one 200. Gives the times (`Date.now()`) at which
 * each request arrived.
 */
function pacedRoute(
  server: FixtureServer,
  status: number,
  headers: Record<string, string> | (() => Record<string, string>),
): number[] {
  const arrivals: number[] = [];
  server.route("/paced", () => {
    arrivals.push(Date.now());
    if (arrivals.length > 1) return new Response("ok");
    return new Response("slow down", {
      status,
      headers: typeof headers === "function" ? headers() : headers,
    });
  });
  return arrivals;
}

/**
 * How long the pause set by a first response of `status` with `headers` is,
 * in whole seconds, as a second call sees it through `maxWaitSeconds: 0`
 * (it fails at once with the wait it would have had), or `undefined` when
 * that call is sent. Either way the server counts no more calls than that.
 */
async function pauseAfter(
  status: number,
  headers: Record<string, string> | (() => Record<string, string>),
  options: ServerPacingOptions = { maxWaitSeconds: 0 },
): Promise<number | undefined> {
  await using server = startFixtureServer();
  const arrivals = pacedRoute(server, status, headers);
  await using client = clientWith(server.url, serverPacing(options));
  const first = await client.get("/paced");
  assert.equal(first.statusCode, status, "the response that carried the signal, as it is");
  try {
    await client.get("/paced");
    assert.equal(arrivals.length, 2);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof RateLimitedException, String(error));
    assert.equal(arrivals.length, 1, "the paused call never reached the server");
    return error.retryAfterSeconds;
  }
}

Deno.test("a 429 with Retry-After: 2 keeps every call to its origin from the server for 2 s, and no other origin's", async () => {
  await using server = startFixtureServer();
  await using other = startFixtureServer();
  const arrivals = pacedRoute(server, 429, { "Retry-After": "2" });
  const pacing = serverPacing();
  await using client = clientWith(server.url, pacing);
  const first = await client.get("/paced");
  assert.equal(first.statusCode, 429);
  assert.equal(first.header("retry-after"), "2", "returned to its caller as it is");
  const sentAt = arrivals[0]!;
  const waiting = [client.get("/paced"), client.get("/paced")];
  // Another origin is not paused: it answers while these wait.
  const elsewhere = performance.now();
  assert.equal((await client.get(`${other.url}/echo`)).statusCode, 200);
  assert.ok(performance.now() - elsewhere < 500, "another origin's call waited");
  await new Promise((resolve) => setTimeout(resolve, 50));
  const state = pacing.state()[server.url];
  assert.equal(state?.waiting, 2);
  assert.ok(state.pausedUntil >= sentAt + 2000 && state.pausedUntil < Date.now() + 2000);
  assert.equal(arrivals.length, 1, "no call reached the server during the pause");
  for (const response of await settles(Promise.all(waiting))) {
    assert.equal(response.statusCode, 200);
  }
  assert.equal(arrivals.length, 3);
  for (const at of arrivals.slice(1)) {
    assert.ok(at - sentAt >= 2000, `a call reached the server ${at - sentAt} ms after the 429`);
  }
  assert.deepEqual(pacing.state(), {}, "the pause is over and forgotten");
});

Deno.test("a wait longer than maxWaitSeconds fails at once with RateLimitedException carrying retryAfterSeconds, masked", async () => {
  await using server = startFixtureServer();
  const arrivals = pacedRoute(server, 503, { "Retry-After": "120" });
  const pacing = serverPacing({ maxWaitSeconds: 60 });
  await using client = clientWith(server.url, pacing);
  assert.equal((await client.get("/paced")).statusCode, 503);
  const started = performance.now();
  const error = await rejectsWith(
    client.get("/paced?api_key=s3cr3t-key", { headers: { Authorization: "Bearer s3cr3t-token" } }),
    RateLimitedException,
    /^Rate limited by the server for 120 s \(maxWaitSeconds 60\): GET http:\/\/127\.0\.0\.1:\d+\/paced/,
  ) as RateLimitedException;
  assert.ok(performance.now() - started < 500, "it failed at once");
  assert.equal(error.retryAfterSeconds, 120);
  assert.ok(error instanceof HttpClientException);
  assert.doesNotMatch(`${error.message} ${JSON.stringify(error)}`, /s3cr3t/);
  assert.equal(arrivals.length, 1);
  assert.equal(pacing.state()[server.url]?.waiting, 0);
});

Deno.test("Retry-After is read on a 429 and a 503 only, as seconds or an HTTP date against the response's Date", async () => {
  assert.equal(await pauseAfter(429, { "Retry-After": "30" }), 30);
  assert.equal(await pauseAfter(503, { "Retry-After": "30" }), 30);
  for (const status of [200, 301, 500, 502]) {
    assert.equal(await pauseAfter(status, { "Retry-After": "30" }), undefined, `${status}`);
  }
  // The server's clock is an hour behind this one: its date means 90 s from its now.
  const serverNow = Date.now() - 3600_000;
  const date = (ms: number) => new Date(ms).toUTCString();
  const wait = await pauseAfter(429, {
    "Date": date(serverNow),
    "Retry-After": date(serverNow + 90_000),
  });
  assert.ok(wait !== undefined && wait >= 89 && wait <= 91, `${wait}`);
  // A date past, or a Retry-After that is no number or date, pauses nothing.
  assert.equal(await pauseAfter(429, { "Retry-After": date(Date.now() - 60_000) }), undefined);
  assert.equal(await pauseAfter(429, { "Retry-After": "soon" }), undefined);
  // A response from a cache (a positive Age) is old news.
  assert.equal(await pauseAfter(429, { "Retry-After": "30", "Age": "5" }), undefined);
});

Deno.test("X-RateLimit-Remaining: 0 pauses until X-RateLimit-Reset, read as seconds below 1e9 and as an epoch time from it", async () => {
  const spent = (reset: string, extra: Record<string, string> = {}) => ({
    "X-RateLimit-Remaining": "0",
    "X-RateLimit-Reset": reset,
    ...extra,
  });
  // Seconds from now, on any status.
  assert.equal(await pauseAfter(200, spent("3600")), 3600);
  assert.equal(await pauseAfter(403, spent("45")), 45);
  // An epoch time in seconds (GitHub's), against the server's Date.
  const now = Date.now();
  const epoch = await pauseAfter(200, () => spent(String(Math.floor(Date.now() / 1000) + 3600)));
  assert.ok(epoch !== undefined && epoch >= 3599 && epoch <= 3601, `${epoch}`);
  const skewed = await pauseAfter(200, {
    ...spent(String(Math.floor(now / 1000) - 3600 + 600)),
    "Date": new Date(now - 3600_000).toUTCString(),
  });
  assert.ok(skewed !== undefined && skewed >= 599 && skewed <= 601, `${skewed}`);
  // Discord's epochs have a fraction.
  const fraction = await pauseAfter(200, spent(`${Math.floor(Date.now() / 1000) + 100}.5`));
  assert.ok(fraction !== undefined && fraction >= 99 && fraction <= 102, `${fraction}`);
  // The earlier drafts' names read alike.
  assert.equal(
    await pauseAfter(200, { "RateLimit-Remaining": "0", "RateLimit-Reset": "70" }),
    70,
  );
  // Quota left, no reset, or a reset that is no number: nothing to wait for.
  assert.equal(
    await pauseAfter(200, { ...spent("3600"), "X-RateLimit-Remaining": "1" }),
    undefined,
  );
  assert.equal(await pauseAfter(429, { "X-RateLimit-Remaining": "0" }), undefined);
  assert.equal(await pauseAfter(200, spent("-5")), undefined);
  assert.equal(await pauseAfter(200, spent("tomorrow")), undefined);
});

Deno.test("X-RateLimit-Reset as an epoch time in milliseconds (from 1e12) pauses until then, not 56,000 years", async () => {
  const spent = () => ({
    "X-RateLimit-Remaining": "0",
    "X-RateLimit-Reset": String(Date.now() + 30_000),
  });
  const ms = await pauseAfter(200, spent);
  // Against the response's Date, which has whole seconds and which the server renders once a
  // second: up to 2 s more than the 30 s the handler meant, under load.
  assert.ok(ms !== undefined && ms >= 29 && ms <= 32, `${ms}`);
});

Deno.test("the RateLimit draft's field: an item with r=0 pauses for its t, else its policy's w; a malformed field is ignored", async () => {
  // Draft 11's syntax: a list of items, each a policy's name with parameters.
  assert.equal(await pauseAfter(200, { "RateLimit": '"default";r=0;t=30' }), 30);
  assert.equal(
    await pauseAfter(429, { "RateLimit": '"burst";r=5;t=1, "daily";r=0;t=3600' }),
    3600,
    "the spent item, not the first",
  );
  assert.equal(await pauseAfter(200, { "RateLimit": '"burst";r=0;t=10, "daily";r=0;t=90' }), 90);
  assert.equal(
    await pauseAfter(200, {
      "RateLimit": '"peruser";r=0;pk=:cHsdsRa894==:',
      "RateLimit-Policy": '"permin";q=50;w=60, "peruser";q=100;w=600;pk=:cHsdsRa894==:',
    }),
    600,
    "no t: the policy of the same name's window",
  );
  for (
    const field of [
      '"default";r=1;t=30', // quota left
      '"default";r=0', // no t, no policy
      '"default";r=0;t=30,', // a trailing comma
      '"default";r=0;t=30,,"x";r=1', // an empty member
      'default=0;t="30"', // not a list of items with these parameters
      "limit=100, remaining=0, reset=30", // draft 7's dictionary: not this draft's
      '"default";r=0;t=2.5', // t must be an integer
    ]
  ) {
    assert.equal(await pauseAfter(200, { "RateLimit": field }), undefined, field);
  }
  // A 429's Retry-After wins over the field, as the draft says.
  assert.equal(
    await pauseAfter(429, { "Retry-After": "5", "RateLimit": '"default";r=0;t=3600' }),
    5,
  );
  // With no Retry-After, the longest of the fields that say the quota is spent.
  assert.equal(
    await pauseAfter(429, {
      "RateLimit": '"default";r=0;t=40',
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": "50",
    }),
    50,
  );
});

Deno.test("a reset of 1 s holds the next call that long: X-RateLimit-Reset as seconds and as an epoch time, RateLimit's t", async () => {
  const signals: (() => Record<string, string>)[] = [
    () => ({ "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1" }),
    // Against the server's Date, its whole second: the reset is 1 s after it.
    () => {
      const now = Date.now();
      return {
        "Date": new Date(now).toUTCString(),
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": String(Math.floor(now / 1000) + 1),
      };
    },
    () => ({ "RateLimit": '"default";r=0;t=1' }),
  ];
  for (const signal of signals) {
    await using server = startFixtureServer();
    const arrivals = pacedRoute(server, 200, signal);
    await using client = clientWith(server.url, serverPacing());
    await client.get("/paced");
    assert.equal((await settles(client.get("/paced"))).statusCode, 200);
    assert.equal(arrivals.length, 2);
    const waited = arrivals[1]! - arrivals[0]!;
    assert.ok(waited >= 1000 && waited < 1900, `${JSON.stringify(signal())}: ${waited} ms`);
  }
});

Deno.test("one pause per origin: a later signal moves it later, never sooner", async () => {
  for (const [fast, slow, expected] of [[30, 5, 30], [5, 30, 30]] as const) {
    await using server = startFixtureServer();
    server.route(
      "/fast",
      () => new Response(null, { status: 429, headers: { "Retry-After": `${fast}` } }),
    );
    // Sent before the pause, answered after it.
    server.route("/slow", async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return new Response("ok", {
        headers: { "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": `${slow}` },
      });
    });
    const pacing = serverPacing({ maxWaitSeconds: 0 });
    await using client = clientWith(server.url, pacing);
    const slowCall = client.get("/slow");
    await client.get("/fast");
    await slowCall;
    const error = await rejectsWith(client.get("/fast"), RateLimitedException, /Rate limited/);
    assert.equal((error as RateLimitedException).retryAfterSeconds, expected);
    assert.equal(server.requests.length, 2);
  }
});

Deno.test("a waiting call ended by its signal, the client's close or its timeout leaves nothing behind", async () => {
  await using server = startFixtureServer();
  const arrivals = pacedRoute(server, 429, { "Retry-After": "30" });
  const pacing = serverPacing();
  await using client = clientWith(server.url, pacing);
  await client.get("/paced");

  const controller = new AbortController();
  const aborted = client.get("/paced", { signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await rejectsWith(settles(aborted), HttpClientException, /^Request was aborted: GET/);

  await rejectsWith(
    settles(client.get("/paced", { timeout: 0.1 })),
    TimeoutException,
    /^Request timed out after 0\.1 s waiting in the server's rate limit: GET/,
  );
  await rejectsWith(
    settles(client.get("/paced", { totalTimeout: 0.1 })),
    TimeoutException,
    /^Request timed out after 0\.1 s \(totalTimeout\) waiting in the server's rate limit: GET/,
  );
  // An already aborted signal ends the wait at once too.
  await rejectsWith(
    settles(client.get("/paced", { signal: AbortSignal.abort() })),
    HttpClientException,
    /aborted/,
  );
  assert.equal(pacing.state()[server.url]?.waiting, 0);

  const closing = clientWith(server.url, pacing);
  const waiting = [closing.get("/paced"), closing.get("/paced")];
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(pacing.state()[server.url]?.waiting, 2);
  await closing.close();
  for (const call of waiting) {
    await rejectsWith(settles(call), HttpClientException, /^Client was closed during the request/);
  }
  assert.equal(pacing.state()[server.url]?.waiting, 0);
  assert.equal(arrivals.length, 1, "none of them reached the server");
});

Deno.test("a program whose waiting calls ended early ends at once: no timer of theirs holds it for the pause", async () => {
  let served = 0;
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => (served++, new Response(null, { status: 429, headers: { "Retry-After": "50" } })),
  );
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" run --quiet --allow-net=127.0.0.1 "$1" "$2"',
      Deno.execPath(),
      new URL("./traffic_pacing_child.ts", import.meta.url).pathname,
      `http://127.0.0.1:${server.addr.port}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The pause is 50 s; a child still running after 15 s is held by a wait's timer.
  const { ended, text } = await exitWithin(child, 15_000);
  assert.ok(ended, `the program was still running 15 s after its calls ended: ${text}`);
  assert.equal(text.trim(), "429\nrejected rejected fulfilled rejected\nwaiting 0");
  assert.equal(served, 1);
});

Deno.test("with the client's retries: a retried 429 waits the client's retry wait, and a second caller waits for the pause", async () => {
  await using server = startFixtureServer();
  const arrivals = pacedRoute(server, 429, { "Retry-After": "1" });
  const pacing = serverPacing();
  const attempts: number[] = [];
  await using client = clientWith(
    server.url,
    pacing,
    (builder) =>
      builder.withRetry({ maxRetries: 2 }).withRequestHook({
        beforeRequest: (request, context) => (attempts.push(context.attempt), request),
      }),
  );
  const first = client.get("/paced");
  // The second caller starts once the 429 is in.
  while (arrivals.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 20));
  const second = client.get("/paced");
  const [retried, waited] = await settles(Promise.all([first, second]));
  assert.equal(retried.statusCode, 200);
  assert.equal(waited.statusCode, 200);
  assert.deepEqual(attempts.sort(), [0, 0, 1], "one retry; the second caller's one attempt");
  assert.equal(arrivals.length, 3);
  for (const at of arrivals.slice(1)) {
    assert.ok(at - arrivals[0]! >= 1000, `${at - arrivals[0]!} ms`);
  }
});

Deno.test("a Retry-After past maxRetryAfter is not retried: the 429 is returned, and the next call fails at once", async () => {
  await using server = startFixtureServer();
  const arrivals = pacedRoute(server, 429, { "Retry-After": "600" });
  await using client = clientWith(
    server.url,
    serverPacing(),
    (builder) => builder.withRetry({ maxRetries: 2, maxRetryAfter: 60 }),
  );
  assert.equal((await client.get("/paced")).statusCode, 429);
  const error = await rejectsWith(client.get("/paced"), RateLimitedException, /600 s/);
  assert.equal((error as RateLimitedException).retryAfterSeconds, 600);
  assert.equal(arrivals.length, 1, "RateLimitedException is never retried");
});

Deno.test("serverPacing() refuses bad options with a TypeError naming the field", () => {
  for (const value of [-1, Infinity, NaN, null]) {
    throwsAtOnce(
      () => serverPacing({ maxWaitSeconds: value as never }),
      TypeError,
      /^Invalid maxWaitSeconds: expected a finite number of seconds, 0 or more, got /,
    );
  }
  throwsAtOnce(
    () => serverPacing({ maxWaitSeconds: "60" as never }),
    TypeError,
    'Invalid maxWaitSeconds: expected a finite number of seconds, 0 or more, or a string with its unit ("250ms", "5s", "2m", "1h"), got "60"',
  );
  throwsAtOnce(
    () => serverPacing({ maxWait: 5 } as never),
    TypeError,
    'Invalid serverPacing options: unknown key "maxWait" (known: maxWaitSeconds)',
  );
  throwsAtOnce(() => serverPacing("60" as never), TypeError, /^Invalid serverPacing options/);
  assert.equal(serverPacing().maxWaitSeconds, 60);
  assert.equal(serverPacing({ maxWaitSeconds: 0 }).maxWaitSeconds, 0);
});
