/**
 * Regenerates tests/fixtures/chromium.har: a small HAR recorded by the
 * system's Chromium (/usr/bin/chromium, headless, driven by puppeteer-core
 * as scripts/test_browser.ts drives it) from the DevTools protocol's Network
 * events, turned into a HAR by chrome-har (the converter of sitespeed.io,
 * which writes DevTools' format: `_` fields, compressed sizes, bodies as
 * text or base64), against a server on 127.0.0.1 only. tests/har_test.ts and
 * tests/node/har.test.mjs replay it through MockTransport.fromHar.
 *
 * Run with `deno run --allow-net=127.0.0.1 --allow-read --allow-write --allow-run=npm,node --allow-env scripts/record_chromium_har.ts`.
 *
 * @module
 */

const PACKAGES = ["puppeteer-core@25.16.0", "chrome-har@1.3.1"];
const target = new URL("../tests/fixtures/chromium.har", import.meta.url);

const png = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  const { pathname } = new URL(req.url);
  if (pathname === "/") {
    return new Response(
      `<!doctype html><title>har</title><script type="module">
        await fetch("/api/items?page=2").then((r) => r.json());
        await fetch("/api/items", { method: "POST", headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "Ada" }) }).then((r) => r.json());
        await fetch("/text").then((r) => r.text());
        await fetch("/pixel.png").then((r) => r.arrayBuffer());
        await fetch("/missing").then((r) => r.text());
        await fetch("/moved").then((r) => r.text());
        document.title = "done";
      </script>`,
      { headers: { "content-type": "text/html" } },
    );
  }
  if (pathname === "/api/items" && req.method === "POST") {
    return Response.json({ created: await req.json() }, { status: 201 });
  }
  if (pathname === "/api/items") return Response.json({ items: [1, 2, 3], page: 2 });
  if (pathname === "/text") {
    const body = "Gzipped text, ".repeat(40);
    const gzipped = new Response(
      new Blob([body]).stream().pipeThrough(new CompressionStream("gzip")),
    );
    return new Response(await gzipped.arrayBuffer(), {
      headers: { "content-type": "text/plain; charset=utf-8", "content-encoding": "gzip" },
    });
  }
  if (pathname === "/pixel.png") {
    return new Response(png, { headers: { "content-type": "image/png" } });
  }
  if (pathname === "/moved") return Response.redirect(new URL("/api/items?page=2", req.url), 302);
  return new Response("not here", { status: 404 });
});

const work = await Deno.makeTempDir({ prefix: "fetchline-chromium-har-" });
try {
  const install = await new Deno.Command("npm", {
    args: ["install", "--silent", "--no-audit", "--no-fund", ...PACKAGES],
    cwd: work,
    stderr: "inherit",
  }).output();
  if (!install.success) throw new Error("npm install failed");
  await Deno.writeTextFile(
    `${work}/record.mjs`,
    `import puppeteer from "puppeteer-core";
import { harFromMessages } from "chrome-har";
const browser = await puppeteer.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless=new"] });
try {
  const page = await browser.newPage();
  const cdp = await page.createCDPSession();
  const events = [];
  const bodies = [];
  for (const method of ["Page.loadEventFired", "Page.domContentEventFired", "Page.frameStartedLoading",
    "Page.frameAttached", "Page.frameScheduledNavigation", "Network.requestWillBeSent",
    "Network.requestServedFromCache", "Network.dataReceived", "Network.responseReceived",
    "Network.resourceChangedPriority", "Network.loadingFinished", "Network.loadingFailed"]) {
    cdp.on(method, (params) => {
      events.push({ method, params });
      // The body is no event: asked for, and set on the response as chrome-har reads it.
      if (method === "Network.loadingFinished") {
        const received = events.find((event) => event.method === "Network.responseReceived" &&
          event.params.requestId === params.requestId);
        bodies.push(cdp.send("Network.getResponseBody", { requestId: params.requestId })
          .then(({ body, base64Encoded }) => {
            if (received === undefined) return;
            received.params.response.body = body;
            if (base64Encoded) received.params.response.encoding = "base64";
          })
          .catch(() => {}));
      }
    });
  }
  await cdp.send("Page.enable");
  await cdp.send("Network.enable");
  await page.goto(process.argv[2]);
  await page.waitForFunction(() => document.title === "done", { timeout: 30000 });
  await Promise.all(bodies);
  const har = harFromMessages(events, { includeTextFromResponseBody: true });
  process.stdout.write(JSON.stringify(har, null, 2));
} finally {
  await browser.close();
}
`,
  );
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const recorded = await new Deno.Command("node", {
    args: ["record.mjs", url],
    cwd: work,
    stderr: "inherit",
  })
    .output();
  if (!recorded.success) throw new Error("the recording failed");
  const har = JSON.parse(new TextDecoder().decode(recorded.stdout));
  await Deno.writeTextFile(target, `${JSON.stringify(har, null, 2)}\n`);
  console.log(
    `${har.log.entries.length} entries written to ${decodeURIComponent(target.pathname)}`,
  );
} finally {
  await Deno.remove(work, { recursive: true });
}
