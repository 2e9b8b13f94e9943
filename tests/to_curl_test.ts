import assert from "node:assert/strict";
import fc from "fast-check";
import { HttpClient, HttpClientConfigBuilder, HttpRequest, type HttpRequestInit } from "../mod.ts";
import { serializeJson, toCurl } from "../utils.ts";
import { formDataOf, type RecordedRequest, startFixtureServer } from "./fixture_server.ts";

const SEP = " \\\n  ";
const lines = (...args: string[]) => args.join(SEP);

/** Runs a rendered command through `sh -c` in `cwd`; it must succeed. */
async function runInShell(command: string, cwd: string): Promise<void> {
  const output = await new Deno.Command("sh", {
    args: ["-c", `${command} -s -o /dev/null`],
    cwd,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  assert.equal(
    output.code,
    0,
    `curl failed (${output.code}): ${new TextDecoder().decode(output.stderr)}\n${command}`,
  );
}

Deno.test("toCurl() starts with the quoted method and ends with the quoted URL", () => {
  assert.equal(
    toCurl(new HttpRequest("GET", "https://api.example.com/users")),
    lines("curl -X 'GET'", "'https://api.example.com/users'"),
  );
  assert.equal(
    toCurl(new HttpRequest("delete", "/relative/path")),
    lines("curl -X 'DELETE'", "'/relative/path'"),
  );
});

Deno.test("toCurl() renders a QUERY with -X QUERY and its body", () => {
  const request = new HttpRequest("QUERY", "https://api.example.com/search", {
    jsonData: { q: "Ada" },
  });
  assert.equal(
    toCurl(request),
    lines(
      "curl -X 'QUERY'",
      "-H 'Content-Type: application/json'",
      `--data '{"q": "Ada"}'`,
      "'https://api.example.com/search'",
    ),
  );
});

Deno.test("toCurl() renders headers, then -u, then the body, the timeout and the URL", () => {
  const request = new HttpRequest("POST", "https://api.example.com/items", {
    headers: { Accept: "application/json", "X-Trace": "t-1" },
    jsonData: { name: "widget", tags: ["a", "b"] },
    auth: ["ada", "pa:ss"],
    timeout: 30,
    params: { draft: true },
  });
  assert.equal(
    toCurl(request),
    lines(
      "curl -X 'POST'",
      "-H 'Accept: application/json'",
      "-H 'X-Trace: t-1'",
      "-H 'Content-Type: application/json'",
      "-u 'ada:pa:ss'",
      `--data '{"name": "widget", "tags": ["a", "b"]}'`,
      "--max-time 30.0",
      "'https://api.example.com/items?draft=true'",
    ),
  );
  assert.equal(request.toCurl(), toCurl(request));
});

Deno.test("toCurl() adds the JSON Content-Type once, keeping one already set in any case", () => {
  const request = new HttpRequest("PUT", "https://h.test/x", {
    jsonData: [1],
    headers: { "content-TYPE": "application/vnd.api+json" },
  });
  assert.equal(
    toCurl(request),
    lines(
      "curl -X 'PUT'",
      "-H 'content-TYPE: application/vnd.api+json'",
      "--data '[1]'",
      "'https://h.test/x'",
    ),
  );
});

Deno.test("toCurl() renders form data URL-encoded with no Content-Type", () => {
  const request = new HttpRequest("POST", "https://h.test/login", {
    data: { user: "a b", pw: "x&y=z", n: 1 },
  });
  assert.equal(
    toCurl(request),
    lines("curl -X 'POST'", "--data 'user=a+b&pw=x%26y%3Dz&n=1'", "'https://h.test/login'"),
  );
});

Deno.test("toCurl() renders files as -F and form fields beside them as --form-string", () => {
  const request = new HttpRequest("POST", "https://h.test/upload", {
    data: { note: "@/etc/passwd" },
    files: {
      report: "/tmp/report.pdf",
      odd: '/tmp/a;type=text/html,b"c.txt',
      blob: new Blob(["x"]),
      named: new File(["x"], "photo.png"),
      bytes: new Uint8Array([1]),
    },
  });
  assert.equal(
    toCurl(request),
    lines(
      "curl -X 'POST'",
      "--form-string 'note=@/etc/passwd'",
      "-F 'report=@/tmp/report.pdf'",
      `-F 'odd=@"/tmp/a;type=text/html,b\\"c.txt"'`,
      "-F 'blob=@blob'",
      "-F 'named=@photo.png'",
      "-F 'bytes=@bytes'",
      "'https://h.test/upload'",
    ),
  );
});

Deno.test("toCurl() prints the timeout as a float", () => {
  const render = (timeout: number) =>
    toCurl(new HttpRequest("GET", "https://h.test/", { timeout }));
  assert.match(render(30), /--max-time 30\.0 /);
  assert.match(render(2.5), /--max-time 2\.5 /);
  assert.match(render(0.05), /--max-time 0\.05 /);
});

Deno.test("toCurl() quotes every value so a ' cannot end the quoting", () => {
  const request = new HttpRequest("GET", "https://h.test/it's", {
    headers: { "X-Name": "O'Brien $(id) `id` \\ ! %s" },
    auth: ["o'neil", "p'w"],
  });
  assert.equal(
    toCurl(request),
    lines(
      "curl -X 'GET'",
      `-H 'X-Name: O'"'"'Brien $(id) \`id\` \\ ! %s'`,
      `-u 'o'"'"'neil:p'"'"'w'`,
      `'https://h.test/it'"'"'s'`,
    ),
  );
});

Deno.test("toCurl() keeps curl from reinterpreting: globbing, empty headers, HEAD", () => {
  assert.equal(
    toCurl(
      new HttpRequest("GET", "https://h.test/a[1]/{b}", {
        params: { q: "[x]" },
        headers: { "X-Empty": "" },
      }),
    ),
    lines("curl -X 'GET'", "--globoff", "-H 'X-Empty;'", "'https://h.test/a[1]/%7Bb%7D?q=%5Bx%5D'"),
  );
  assert.equal(
    toCurl(new HttpRequest("HEAD", "https://h.test/")),
    lines("curl -X 'HEAD'", "--head", "'https://h.test/'"),
  );
});

Deno.test("toCurl() refuses what it cannot render safely", () => {
  assert.throws(
    () => toCurl(new HttpRequest("GET", "https://h.test/", { auth: ["u", "p\0w"] })),
    /NUL/,
  );
  assert.throws(
    () => new HttpRequest("GET", "https://h.test/", { headers: { "X-A": "a\r\nInjected: 1" } }),
    /"X-A"/,
  );
  assert.throws(
    () => new HttpRequest("GET", "https://h.test/", { headers: { "X A": "v" } }),
    /header name/,
  );
});

/** What a recording shows of the request the client meant to send. */
async function essence(recorded: RecordedRequest, headerNames: string[]) {
  const headers = Object.fromEntries(headerNames.map((name) => [name, recorded.headers[name]]));
  const multipart = recorded.headers["content-type"]?.startsWith("multipart/form-data") ?? false;
  let body: unknown = new TextDecoder().decode(recorded.body);
  if (multipart) {
    const parts = [];
    for (const [name, value] of await formDataOf(recorded)) {
      parts.push([name, typeof value === "string" ? value : [value.name, await value.text()]]);
    }
    body = parts;
  }
  return { method: recorded.method, path: recorded.path, query: recorded.query, headers, body };
}

Deno.test("toCurl() commands replay every kind of request byte for byte through the real curl", async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).withMaxRedirects(0).build(),
  );
  const dir = await Deno.makeTempDir();
  try {
    const upload = `${dir}/report; final.txt`;
    await Deno.writeTextFile(upload, "file contents\nline 2 — ünïcode");
    const cases: [string, string, HttpRequestInit][] = [
      ["GET", "/search", {
        params: { q: "a b&c", tag: ["x", "y"], n: 1 },
        headers: { "X-Trace": "it's $(id)" },
      }],
      ["POST", "/json", { jsonData: { name: "Zoë", quote: "'\"`$", list: [1, 2.5, null, true] } }],
      ["PUT", "/json", {
        jsonData: [{ nested: { deep: "\n\t\u0001" } }],
        headers: { "content-type": "application/json; charset=utf-8" },
      }],
      ["PATCH", "/form", { data: { user: "a b", pw: "x&y=z'", empty: "" } }],
      ["DELETE", "/items/7", { params: { soft: true }, auth: ["Zoë", "p'ss:wörd"] }],
      ["HEAD", "/head", { headers: { "X-Empty": "" } }],
      ["OPTIONS", "/any", { timeout: 5 }],
      ["QUERY", "/search", { jsonData: { q: "Zoë's" }, params: { page: 2 } }],
      ["POST", "/upload", {
        files: { report: upload },
        data: { note: "@/etc/passwd", other: "<stdin" },
      }],
      ["GET", "/glob/[1]/{a,b}", { params: { range: "[0-9]" } }],
    ];
    for (const [method, path, init] of cases) {
      const request = new HttpRequest(method, `${server.url}${path}`, init);
      await client.request(request);
      const viaClient = server.last();
      await runInShell(toCurl(request), dir);
      const viaCurl = server.last();
      assert.notEqual(viaClient, viaCurl);
      const names = [
        ...Object.keys(init.headers ?? {}).map((name) => name.toLowerCase()),
        "authorization",
      ];
      if (!init.files) names.push("content-type");
      assert.deepEqual(
        await essence(viaCurl, names),
        await essence(viaClient, names),
        `${method} ${path}`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const INJECTIONS = [
  "$(touch pwned)",
  "`touch pwned`",
  "'; touch pwned; '",
  '"; touch pwned; "',
  "\\'",
  "'\\''",
];
const SHELL_CHARS = [..."'\"`$\\!%;&|<>(){}[]*?~#= \t^"];
const ASCII = [...Array(95)].map((_, i) => String.fromCharCode(32 + i));

/** Text mixing injection attempts, shell metacharacters and `unit` characters. */
function hostile(unit: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const piece = fc.oneof(
    fc.constantFrom(...INJECTIONS),
    fc.constantFrom(...SHELL_CHARS),
    fc.string({ unit, maxLength: 6 }),
  );
  return fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(""));
}

const anyChar = fc.oneof(
  fc.constantFrom(...ASCII),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
);
const noNul = (text: string) => text.replaceAll("\0", "");
/** `text` in a URL's path: without the controls a URL refuses, and never last, where a space is refused. */
const inPath = (text: string) => `${[...text].filter((c) => c >= " " && c !== "\x7f").join("")}/z`;
const basic = (user: string, password: string) =>
  `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${password}`)))}`;

Deno.test("toCurl() commands never run anything else, and curl sends exactly the bytes given", async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).withMaxRedirects(0).build(),
  );
  const dir = await Deno.makeTempDir();
  const canary = `${dir}/pwned`;
  const runs = Number(Deno.env.get("TO_CURL_RUNS") ?? 1000);
  try {
    await fc.assert(
      fc.asyncProperty(
        hostile(fc.constantFrom(...ASCII)),
        fc.record({ text: hostile(anyChar), value: fc.jsonValue({ maxDepth: 2 }) }),
        hostile(anyChar),
        hostile(anyChar).map((user) => noNul(user).replaceAll(":", "") || "u"),
        hostile(anyChar).map(noNul),
        async (headerValue, body, urlText, user, password) => {
          const request = new HttpRequest("POST", `${server.url}/p/${inPath(urlText)}`, {
            params: { q: urlText },
            headers: { "X-Value": headerValue },
            jsonData: body,
            auth: [user, password],
          });
          await client.request(request);
          const viaClient = server.last();
          await runInShell(toCurl(request), dir);
          const viaCurl = server.last();
          assert.equal(
            await Deno.stat(canary).then(() => true, () => false),
            false,
            "a command ran",
          );
          assert.equal(viaCurl.method, "POST");
          assert.equal(viaCurl.path, viaClient.path);
          assert.equal(viaCurl.query, viaClient.query);
          assert.equal(viaCurl.headers["x-value"], headerValue.replace(/^[ \t]+|[ \t]+$/g, ""));
          assert.equal(viaCurl.headers["authorization"], basic(user, password));
          assert.equal(new TextDecoder().decode(viaCurl.body), serializeJson(body));
          assert.deepEqual(viaCurl.body, viaClient.body);
        },
      ),
      { numRuns: runs },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("toCurl() never lets a URL or an in-memory file name make curl read a local file", () => {
  assert.equal(
    toCurl(new HttpRequest("GET", "-K/tmp/cfg.txt")),
    lines("curl -X 'GET'", "--url '-K/tmp/cfg.txt'"),
  );
  const request = new HttpRequest("POST", "https://h.test/", {
    files: {
      key: new File(["x"], "/home/u/.ssh/id_rsa"),
      dash: new File(["x"], "-"),
      up: new File(["x"], "../.."),
    },
  });
  assert.equal(
    toCurl(request),
    lines(
      "curl -X 'POST'",
      "-F 'key=@id_rsa'",
      "-F 'dash=@./-'",
      "-F 'up=@./..'",
      "'https://h.test/'",
    ),
  );
});
