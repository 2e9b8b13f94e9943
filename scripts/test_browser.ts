/**
 * The npm package's browser build in a headless Chromium or Firefox, for
 * scripts/test_runtimes.ts: the system's browser (Debian's `chromium` or
 * `firefox-esr`), driven by puppeteer-core (from the npm registry, pinned)
 * through tests/runtimes/chromium.mjs, Firefox over WebDriver BiDi. A page server on 127.0.0.1 serves
 * tests/runtimes/browser.mjs, tests/runtimes/checks.mjs and the installed
 * package's files, with an import map for `@fetchline/fetchline` and the
 * cache's CommonJS dependency (served as an ES module, as a bundler makes it); the
 * fixture the checks call listens on another port, so each call is
 * cross-origin and the fixture answers CORS and its preflights as a real
 * API must (and, under `/cors/`, as scripts/cors_routes.ts describes). The
 * page then runs the shared suite (tests/shared/, served under `/shared/`)
 * against the shared fixture process, on a third and fourth port.
 *
 * @module
 */

import { corsRoutes } from "./cors_routes.ts";

const PUPPETEER = "puppeteer-core@25.16.0";

/** Each browser's executable, as Debian installs it. */
const BROWSERS = { chromium: "/usr/bin/chromium", firefox: "/usr/bin/firefox-esr" } as const;

/** A browser the checks run in. */
export type Browser = keyof typeof BROWSERS;

const types: Record<string, string> = {
  ".mjs": "text/javascript",
  ".js": "text/javascript",
  ".html": "text/html",
};

/** The page: the import map, then the checks' module. */
const page = `<!doctype html>
<meta charset="utf-8">
<title>fetchline in a browser</title>
<script type="importmap">
{
  "imports": {
    "@fetchline/fetchline": "/pkg/browser/mod.js",
    "@fetchline/fetchline/utils": "/pkg/browser/utils.js",
    "@fetchline/fetchline/cache": "/pkg/browser/cache.js",
    "@fetchline/fetchline/traffic": "/pkg/browser/traffic.js",
    "@fetchline/fetchline/har": "/pkg/browser/har.js",
    "@fetchline/fetchline/testing": "/pkg/browser/testing.js",
    "@fetchline/fetchline/sse": "/pkg/browser/sse.js",
    "@fetchline/fetchline/paginate": "/pkg/browser/paginate.js",
    "@fetchline/fetchline/signing": "/pkg/browser/signing.js"
  }
}
</script>
<script type="module" src="/browser.mjs"></script>
`;

/** The test modules the page imports, copied into the work folder. */
const PAGE_MODULES = new Set(["/browser.mjs", "/checks.mjs", "/cors.mjs"]);

/**
 * Serves the page, the test modules and, under `/pkg/`, the installed
 * package: the import map names fetchline's entry points only (the cache
 * imports no package).
 */
function servePage(work: string): Deno.HttpServer<Deno.NetAddr> {
  const pkg = `${work}/node_modules/@fetchline/fetchline/`;
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === "/") {
      return new Response(page, { headers: { "content-type": types[".html"]! } });
    }
    const file = PAGE_MODULES.has(pathname) ||
        (pathname.startsWith("/shared/") && !pathname.includes(".."))
      ? `${work}${pathname}`
      : pathname.startsWith("/pkg/") && !pathname.includes("..")
      ? `${pkg}${pathname.slice("/pkg/".length)}`
      : undefined;
    const type = types[pathname.slice(pathname.lastIndexOf("."))];
    if (file === undefined || type === undefined) return new Response("Not found", { status: 404 });
    try {
      return new Response(await Deno.readFile(file), { headers: { "content-type": type } });
    } catch {
      return new Response("Not found", { status: 404 });
    }
  });
}

/**
 * The fixture tests/runtimes/checks.mjs describes, for a page of another
 * origin: every answer allows that origin, a preflight allows the method
 * and headers asked for, `/headers` sends one exposed and one hidden
 * header, `/redirect` redirects, and `/slow` is held until `held` resolves.
 */
function serveCorsFixture(held: Promise<void>, origin: string): Deno.HttpServer<Deno.NetAddr> {
  const cors = corsRoutes(origin, held);
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const routed = await cors(request);
    if (routed !== undefined) return routed;
    const url = new URL(request.url);
    const headers = new Headers({ "access-control-allow-origin": origin, "vary": "origin" });
    if (request.method === "OPTIONS") {
      headers.set("access-control-allow-methods", "GET, POST, PUT, PATCH, DELETE");
      const asked = request.headers.get("access-control-request-headers");
      if (asked !== null) headers.set("access-control-allow-headers", asked);
      return new Response(null, { status: 204, headers });
    }
    if (url.pathname === "/redirect") {
      headers.set("location", "/users");
      return new Response(null, { status: 302, headers });
    }
    // Not answered while the checks run: they give up first.
    if (url.pathname === "/slow") await held;
    const echo = {
      method: request.method,
      query: url.search.slice(1),
      body: await request.text(),
      headers: Object.fromEntries(request.headers),
    };
    headers.set("content-type", "application/json");
    if (url.pathname === "/login") headers.set("set-cookie", "sid=s3cr3t");
    if (url.pathname === "/headers") {
      headers.set("x-exposed", "yes");
      headers.set("x-hidden", "yes");
      headers.set("access-control-expose-headers", "x-exposed");
    }
    return new Response(JSON.stringify(echo), {
      status: url.pathname === "/missing" ? 404 : 200,
      headers,
    });
  });
}

/**
 * Runs the checks in `browser` (Chromium unless named), from the package
 * installed in `work` (where browser.mjs, checks.mjs, cors.mjs and
 * chromium.mjs were copied); whether they all passed. `refusedUrl` is a URL
 * nothing listens on; `sharedFixture` the shared suite's fixture process's
 * JSON line (`{ url, otherUrl, refusedUrl }`), and `areas` the shared areas
 * to keep (all when empty).
 */
export async function chromium(
  work: string,
  refusedUrl: string,
  sharedFixture: string,
  areas = "",
  browser: Browser = "chromium",
): Promise<boolean> {
  const executable = BROWSERS[browser];
  try {
    await Deno.stat(executable);
  } catch {
    const apt = executable.slice(executable.lastIndexOf("/") + 1);
    console.error(`${browser} is not installed at ${executable}: apt-get install ${apt}`);
    return false;
  }
  const install = await new Deno.Command("npm", {
    args: ["install", "--silent", "--no-audit", "--no-fund", PUPPETEER],
    cwd: work,
    stderr: "inherit",
  }).output();
  if (!install.success) return false;
  await using pageServer = servePage(work);
  const pageUrl = `http://127.0.0.1:${pageServer.addr.port}`;
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  await using fixture = serveCorsFixture(held, pageUrl);
  try {
    const query = new URLSearchParams({
      url: `http://127.0.0.1:${fixture.addr.port}`,
      refused: refusedUrl,
      browser,
      fixture: sharedFixture,
      areas,
    });
    const { code } = await new Deno.Command("node", {
      args: ["chromium.mjs", `${pageUrl}/?${query}`, browser],
      cwd: work,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    return code === 0;
  } finally {
    release();
  }
}

/** {@linkcode chromium}'s checks in Firefox (Debian's ESR). */
export function firefox(
  work: string,
  refusedUrl: string,
  sharedFixture: string,
  areas = "",
): Promise<boolean> {
  return chromium(work, refusedUrl, sharedFixture, areas, "firefox");
}
