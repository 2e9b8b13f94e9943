import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { cancelTimeout, startTimeout } from "../src/send/deadline.ts";
import type { Deadline } from "../src/send/deadline.ts";
import { link, unlink } from "../src/send/deadline.ts";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, singleAttemptClient } from "./helpers.ts";

interface Handle {
  hasRef(): boolean;
}

/** A fake clock; `ticks` collects the handles of the 100 ms timers set (the shared tick). */
function fakeClock() {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  const fakeSetTimeout = globalThis.setTimeout;
  const ticks: Handle[] = [];
  globalThis.setTimeout = ((callback: () => void, ms?: number) => {
    const handle = fakeSetTimeout(callback, ms);
    if (ms === 100) ticks.push(handle as unknown as Handle);
    return handle;
  }) as typeof setTimeout;
  const uninstall = clock.uninstall.bind(clock);
  return Object.assign(clock, {
    ticks,
    uninstall() {
      globalThis.setTimeout = fakeSetTimeout;
      return uninstall();
    },
  });
}

/** A deadline in the in-flight list, as a step is, that calls `onExpire` when it expires. */
function deadline(onExpire: () => void): Deadline {
  const entry: Deadline = {
    at: Infinity,
    timer: undefined,
    prevInFlight: undefined,
    nextInFlight: undefined,
    expire() {
      unlink(entry);
      onExpire();
    },
  };
  link(entry);
  return entry;
}

Deno.test("startTimeout() fires a short timeout on its own timer, on time", () => {
  const clock = fakeClock();
  try {
    let fired = 0;
    startTimeout(deadline(() => fired++), 200);
    clock.tick(199);
    assert.equal(fired, 0);
    clock.tick(1);
    assert.equal(fired, 1);
  } finally {
    clock.uninstall();
  }
});

Deno.test("startTimeout() fires timeouts of a second or more from one shared tick, at most 100 ms late", () => {
  const clock = fakeClock();
  try {
    const fired: number[] = [];
    startTimeout(deadline(() => fired.push(clock.now)), 1500);
    startTimeout(deadline(() => fired.push(clock.now)), 3000);
    assert.equal(clock.countTimers(), 1);
    clock.tick(1499);
    assert.deepEqual(fired, []);
    clock.tick(1600);
    assert.equal(fired.length, 2);
    assert.ok(fired[0]! >= 1500 && fired[0]! <= 1600, `fired at ${fired[0]}`);
    assert.ok(fired[1]! >= 3000 && fired[1]! <= 3100, `fired at ${fired[1]}`);
    assert.equal(clock.countTimers(), 0, "the tick stops once nothing waits");
  } finally {
    clock.uninstall();
  }
});

Deno.test("startTimeout() counts from the `now` it is given", () => {
  const clock = fakeClock();
  try {
    let fired = 0;
    clock.tick(5000);
    startTimeout(deadline(() => fired++), 1000, performance.now() - 900);
    clock.tick(100);
    assert.equal(fired, 1, "expired at the first check after now + ms");
  } finally {
    clock.uninstall();
  }
});

Deno.test("cancelTimeout() stops the timeout; the shared tick is unref'd with the last one and ends at its next check", () => {
  const clock = fakeClock();
  try {
    let fired = 0;
    const short = deadline(() => fired++);
    const long = deadline(() => fired++);
    const longer = deadline(() => fired++);
    startTimeout(short, 200);
    startTimeout(long, 30_000);
    startTimeout(longer, 60_000);
    assert.equal(clock.ticks.length, 1, "one 100 ms tick is armed");
    const tick = clock.ticks[0]!;
    cancelTimeout(short);
    cancelTimeout(long);
    assert.equal(clock.countTimers(), 1);
    assert.equal(tick.hasRef(), true, "referenced while a timeout waits");
    cancelTimeout(longer);
    cancelTimeout(longer);
    assert.equal(tick.hasRef(), false, "unref'd once nothing waits");
    clock.tick(100);
    assert.equal(clock.countTimers(), 0, "the tick ended at its next check");
    clock.tick(120_000);
    assert.equal(fired, 0);
    for (const entry of [short, long, longer]) unlink(entry);
  } finally {
    clock.uninstall();
  }
});

Deno.test("a timeout started while the tick is unref'd references it again", () => {
  const clock = fakeClock();
  try {
    let fired = 0;
    const first = deadline(() => fired++);
    startTimeout(first, 1000);
    cancelTimeout(first);
    unlink(first);
    assert.equal(clock.ticks[0]!.hasRef(), false);
    startTimeout(deadline(() => fired++), 1000);
    assert.equal(clock.ticks.length, 1, "the same tick serves it");
    assert.equal(clock.ticks[0]!.hasRef(), true);
    clock.tick(1100);
    assert.equal(fired, 1);
    assert.equal(clock.countTimers(), 0);
  } finally {
    clock.uninstall();
  }
});

Deno.test("HttpClient raises TimeoutException after the client's timeout", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(0.1).withRetry({
    maxRetries: 0,
  }).build();
  await using client = new HttpClient(config);
  const error = await rejectsWith(
    client.get("/delay/3000"),
    TimeoutException,
    /timed out after 0\.1 s: GET .*\/delay\/3000/,
  );
  assert.ok(error instanceof HttpClientException);
  assert.equal((error as TimeoutException).request?.method, "GET");
});

Deno.test("HttpClient lets a per-call timeout override the client's, both ways", async () => {
  await using server = startFixtureServer();
  const slowClient = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(0.05)
    .build();
  await using patient = new HttpClient(slowClient);
  const response = await patient.get("/delay/200", { timeout: 5 });
  assert.equal(response.statusCode, 200);
  await using client = singleAttemptClient(server.url);
  await rejectsWith(client.get("/delay/3000", { timeout: 0.1 }), TimeoutException, /0\.1 s/);
});

Deno.test("HttpClient's timeout covers the response body", async () => {
  await using server = startFixtureServer();
  server.route("/slow-body", () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        if (sent++ > 50) return stream.close();
        await new Promise((resolve) => setTimeout(resolve, 20));
        stream.enqueue(new Uint8Array([120]));
      },
    });
    return new Response(body);
  });
  await using client = singleAttemptClient(server.url);
  await rejectsWith(client.get("/slow-body", { timeout: 0.2 }), TimeoutException, /slow-body/);
});

Deno.test("HttpClient accepts a timeout longer than setTimeout's limit", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  assert.equal((await client.get("/long", { timeout: "960h" })).statusCode, 200);
});
