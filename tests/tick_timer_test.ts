import assert from "node:assert/strict";
import { exitWithin } from "./helpers.ts";
import FakeTimers from "@sinonjs/fake-timers";
import { startTick } from "../src/send/deadline.ts";
import { cancelTimeout, startTimeout } from "../src/send/deadline.ts";
import type { Deadline } from "../src/send/deadline.ts";
import { link, unlink } from "../src/send/deadline.ts";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("startTick() runs its callback once after the time", async () => {
  let ran = 0;
  startTick(() => ran++, 20);
  assert.equal(ran, 0);
  await wait(200);
  assert.equal(ran, 1);
});

Deno.test("startTick(): an unref'd tick does not run; referenced again, it runs, even after its time passed", async () => {
  let ran = 0;
  const early = startTick(() => ran++, 20);
  early.unref?.();
  await wait(200);
  assert.equal(ran, 0, "let go, it did not run");
  early.ref?.();
  await wait(200);
  assert.equal(ran, 1, "referenced again after its time, it ran");

  const late = startTick(() => ran++, 100);
  late.unref?.();
  late.ref?.();
  late.ref?.();
  await wait(300);
  assert.equal(ran, 2, "referenced again in time, it ran once");
});

Deno.test("startTick(): an unref'd tick does not hold the process open", async () => {
  const tick = new URL("../src/send/deadline.ts", import.meta.url).href;
  const code = `import { startTick } from "${tick}";
    startTick(() => console.log("ran"), 60_000).unref?.();
    console.log("done");`;
  const child = new Deno.Command("sh", {
    args: ["-c", 'exec "$0" eval "$1"', Deno.execPath(), code],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The tick is a minute long: a child still running after 20 s waits for it.
  const { ended, text } = await exitWithin(child, 20_000);
  assert.ok(ended, `the process was held open by an unref'd tick: ${text}`);
  assert.equal(text.trim(), "done");
});

/** A deadline in the in-flight list, as a step is, that counts its expiries in `fired`. */
function deadline(fired: number[]): Deadline {
  const entry: Deadline = {
    at: Infinity,
    timer: undefined,
    prevInFlight: undefined,
    nextInFlight: undefined,
    expire() {
      unlink(entry);
      fired[0]!++;
    },
  };
  link(entry);
  return entry;
}

Deno.test("a fake clock installed after the shared tick ran on Deno's own timers drives the next shared timeout", async () => {
  // The tick must have started on Deno's own timers (AbortSignal.timeout), not on setTimeout.
  const own = Object.getOwnPropertyDescriptor(globalThis, "setTimeout");
  assert.ok(own?.get !== undefined, "Deno's setTimeout is still its own");
  for (const lapse of [0, 200]) {
    const real = deadline([0]);
    startTimeout(real, 1000);
    cancelTimeout(real);
    unlink(real);
    // Let go, the tick does not run; past its 100 ms, its time passed unseen.
    await wait(lapse);
    const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const fired = [0];
    const faked = deadline(fired);
    try {
      startTimeout(faked, 1000);
      clock.tick(1100);
      assert.equal(fired[0], 1, `the timeout fired on the fake clock (${lapse} ms after the tick)`);
    } finally {
      cancelTimeout(faked);
      unlink(faked);
      clock.uninstall();
      Object.defineProperty(globalThis, "setTimeout", own);
    }
  }
});
