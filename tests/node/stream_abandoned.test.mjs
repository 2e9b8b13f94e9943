// A streamed body abandoned after a read on the npm build under Node: the
// read timeout's timer must not hold the process open until it fires, and a
// read that waits still times out (the transport's read holds the process).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { fixture } from "./server.mjs";

/** Runs `code` (an ES module) in a child node; resolves to its output, or `null` after `ms`. */
function runChild(code, ms) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
      cwd: import.meta.dirname,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    const timer = setTimeout(() => {
      child.kill();
      resolve(null);
    }, ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(out.trim());
    });
  });
}

/** A child reading `reads` chunks of `url`'s body, then pausing `pause` ms before it returns. */
function childCode(url, readTimeout, reads, pause = 0) {
  return `
    import { createClient } from "@fetchline/fetchline";
    const client = createClient(${JSON.stringify(url)});
    const response = await client.stream("GET", "/", { readTimeout: ${readTimeout} });
    const reader = response.body.getReader();
    try {
      for (let i = 0; i < ${reads}; i++) await reader.read();
      await new Promise((resolve) => setTimeout(resolve, ${pause}));
      console.log("read");
    } catch (error) {
      console.log(error.name + ": " + error.message);
    }
  `;
}

test("a program that reads part of a streamed body and returns ends without waiting for its readTimeout", async (t) => {
  const server = await fixture(t);
  // Two chunks apart: the child reads the first and returns once the body has ended
  // unread on its side (an open socket with a response under way holds a process on
  // Node whatever the client, as it does Node's own fetch).
  server.route("/", (_req, res) => {
    res.writeHead(200);
    res.write("x");
    setTimeout(() => res.end("y"), 100);
  });
  // The child's read timeout is 120 s; a child still running after 20 s waits for it.
  const output = await runChild(childCode(server.url, 120, 1, 400), 20_000);
  assert.equal(output, "read", "the program was still running 20 s after its last read");
});

test("a read that waits on a stalled body still times out in a program with nothing else to do", async (t) => {
  const server = await fixture(t);
  server.route("/", (_req, res) => {
    res.writeHead(200);
    res.write("x");
  });
  const output = await runChild(childCode(server.url, 0.5, 2), 20_000);
  assert.match(output ?? "", /^TimeoutException: Read timed out after 0\.5 s \(readTimeout\)/);
});
