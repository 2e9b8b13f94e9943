import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { startTimeout } from "../src/client/timeouts.ts";

function fakeClock() {
  return FakeTimers.install({ toFake: ["setTimeout", "clearTimeout", "performance"] });
}

Deno.test("startTimeout() fires a short timeout on its own timer, on time", () => {
  const clock = fakeClock();
  try {
    let fired = 0;
    startTimeout(200, () => fired++);
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
    startTimeout(1500, () => fired.push(clock.now));
    startTimeout(3000, () => fired.push(clock.now));
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

Deno.test("startTimeout()'s cancel stops the timeout, and the shared tick with the last one", () => {
  const clock = fakeClock();
  try {
    let fired = 0;
    const cancelShort = startTimeout(200, () => fired++);
    const cancelLong = startTimeout(30_000, () => fired++);
    const cancelLonger = startTimeout(60_000, () => fired++);
    cancelShort();
    cancelLong();
    assert.equal(clock.countTimers(), 1);
    cancelLonger();
    assert.equal(clock.countTimers(), 0);
    clock.tick(120_000);
    assert.equal(fired, 0);
  } finally {
    clock.uninstall();
  }
});
