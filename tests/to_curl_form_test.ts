// toCurl() and curl's `-F` syntax: no field name, value, file name or path
// may make curl upload a file the request does not name, and what curl sends
// must be what the client sends. Checked against the real curl.

import assert from "node:assert/strict";
import fc from "fast-check";
import { HttpClient, HttpClientConfigBuilder, HttpRequest, type HttpRequestInit } from "../mod.ts";
import { toCurl } from "../utils.ts";
import { type FixtureServer, type RecordedRequest, startFixtureServer } from "./fixture_server.ts";

/** A file every test directory holds; no command may ever send its contents. */
const CANARY = "canary";
const SECRET = `CANARY-${crypto.randomUUID()}`;

/** The pieces of `-F` syntax curl reads specially, and names of the canary. */
const FORM_PIECES = [
  "=",
  "@",
  "<",
  ";",
  ",",
  '"',
  "\\",
  "\r",
  "\n",
  "\r\n",
  " ",
  "\t",
  "(",
  ")",
  "-",
  "=<canary",
  "=@canary",
  "<canary",
  "@canary",
  "canary",
  ";type=text/html",
  ";filename=canary",
  ";headers=X-A: 1",
  ";encoder=base64",
  '="',
];

interface Setup {
  server: FixtureServer;
  client: HttpClient;
  dir: string;
}

/** Runs `test` with a fixture server, a client and a temp directory holding the canary. */
async function withSetup(test: (setup: Setup) => Promise<void>): Promise<void> {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).withMaxRedirects(0).build(),
  );
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/${CANARY}`, SECRET);
    await test({ server, client, dir });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Runs `command` through `sh -c` in `dir`. Whatever curl sent must not hold
 * the canary's contents; then curl must have succeeded. Returns what it sent.
 */
async function runCurl(command: string, { server, dir }: Setup): Promise<RecordedRequest> {
  const before = server.requests.length;
  const output = await new Deno.Command("sh", {
    args: ["-c", `${command} -s -S -o /dev/null`],
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  }).output();
  for (const sent of server.requests.slice(before)) {
    assert.ok(!binary(sent.body).includes(SECRET), `curl sent the canary's contents:\n${command}`);
  }
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `curl failed (${output.code}): ${stderr}\n${command}`);
  assert.equal(server.requests.length, before + 1);
  return server.last();
}

/** Bytes as a string of char codes 0-255: lossless, and comparable with `includes`. */
function binary(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

/**
 * The parts of a multipart body, each as its Content-Disposition and its
 * bytes. The part Content-Type is left out: curl guesses it from the file
 * name's extension.
 */
function partsOf(recorded: RecordedRequest): [string, string][] {
  const boundary = /boundary=(.+)$/.exec(recorded.headers["content-type"] ?? "")?.[1];
  assert.ok(boundary !== undefined, "not a multipart body");
  const chunks = `\r\n${binary(recorded.body)}`.split(`\r\n--${boundary}`);
  return chunks.slice(1, -1).map((chunk) => {
    const end = chunk.indexOf("\r\n\r\n");
    const head = chunk.slice(2, end).split("\r\n");
    const disposition = head.find((line) => /^content-disposition:/i.test(line)) ?? "";
    return [disposition, chunk.slice(end + 4)];
  });
}

/** Sends `init` through the client and through its cURL command; both must send the same. */
async function assertReplays(setup: Setup, init: HttpRequestInit): Promise<void> {
  const request = new HttpRequest("POST", `${setup.server.url}/upload`, init);
  await setup.client.request(request);
  const viaClient = setup.server.last();
  const viaCurl = await runCurl(toCurl(request), setup);
  assert.deepEqual(partsOf(viaCurl), partsOf(viaClient), toCurl(request));
}

/** Field names curl would split at their first `=`; the first three upload the canary. */
const SPLIT_NAMES = [
  "x=<canary;",
  "x=@canary",
  "x=<canary;type=text/plain",
  "a;type=text/html",
  "b;filename=canary",
  "c;headers=X-A: 1",
  "d;encoder=base64",
  "e=(",
  "=",
];

Deno.test("toCurl() never renders a field name that makes curl upload a file", async () => {
  await withSetup(async (setup) => {
    const url = `${setup.server.url}/upload`;
    const upload = `${setup.dir}/upload.bin`;
    await Deno.writeTextFile(upload, "upload contents");
    for (const name of [...SPLIT_NAMES, ""]) {
      const cases: HttpRequestInit[] = [
        { files: { [name]: upload } },
        { files: { [name]: new Blob(["memory"]) } },
        { data: { [name]: "v" }, files: { f: upload } },
      ];
      for (const init of cases) {
        let command: string;
        try {
          command = toCurl(new HttpRequest("POST", url, init));
        } catch (error) {
          assert.ok(error instanceof TypeError);
          continue;
        }
        await runCurl(command, setup);
        assert.fail(`rendered a name curl splits: ${command}`);
      }
    }
  });
});

Deno.test("toCurl() refuses a multipart field name curl would split, naming it", () => {
  const render = (init: HttpRequestInit) => () =>
    toCurl(new HttpRequest("POST", "https://h.test/", init));
  const blob = new Blob(["x"]);
  assert.throws(render({ files: { "x=</etc/passwd;": "/tmp/a" } }), {
    name: "TypeError",
    message: /^Cannot render files\["x=<\/etc\/passwd;"\] as a curl form field: /,
  });
  assert.throws(render({ files: { "": blob } }), /^TypeError: Cannot render files\[""\]/);
  assert.throws(render({ data: { "": "v" }, files: { f: blob } }), /data\[""\]/);
  let caught: unknown;
  try {
    render({ data: { "k=v": "s3cret-value" }, files: { f: blob } })();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof TypeError);
  assert.match(caught.message, /^Cannot render data\["k=v"\] as a curl form field: /);
  assert.ok(!caught.message.includes("s3cret"), "the message quotes a value");
  // Without files the form is URL-encoded, where `=` in a name is escaped.
  assert.match(render({ data: { "k=v": "x" } })(), /--data 'k%3Dv=x'/);
});

/** Field names curl's `-F` syntax would reinterpret were they content, not names. */
const ODD_NAMES = [
  "@canary",
  "<canary",
  "a;type",
  "b;filename",
  '"e"\\',
  "f\ng\rh\r\n",
  "i,j",
  " k ",
  "(",
  ")",
  "-",
];

Deno.test("toCurl() renders -F field names and values curl would reinterpret as the client sends them", async () => {
  await withSetup(async (setup) => {
    const upload = `${setup.dir}/upload.bin`;
    await Deno.writeTextFile(upload, "upload contents");
    for (const name of ODD_NAMES) {
      await assertReplays(setup, { files: { [name]: upload } });
      await assertReplays(setup, {
        data: { [name]: "@canary", [`${name}2`]: "<canary", [`${name}3`]: "(\nx\r" },
        files: { f: upload },
      });
    }
  });
});

Deno.test("toCurl() renders file paths curl would reinterpret so curl reads that file", async () => {
  await withSetup(async (setup) => {
    const bases = ["p;type=text", "q,r", "s;filename=canary", 't"u\\v', "w\nx\r", "@canary"];
    for (const [i, base] of bases.entries()) {
      const path = `${setup.dir}/${base}`;
      await Deno.writeTextFile(path, `file ${i}`);
      await assertReplays(setup, { files: { f: path } });
    }
    // Relative paths curl would strip (spaces) or read as stdin (`-`).
    await Deno.writeTextFile(`${setup.dir}/ s `, "spaced");
    await Deno.writeTextFile(`${setup.dir}/-`, "dash");
    const request = new HttpRequest("POST", `${setup.server.url}/upload`, {
      files: { a: " s ", b: "-" },
    });
    const command = toCurl(request);
    assert.match(command, /-F 'a=@" s "'.*-F 'b=@\.\/-'/s);
    assert.deepEqual(partsOf(await runCurl(command, setup)), [
      ['Content-Disposition: form-data; name="a"; filename=" s "', "spaced"],
      ['Content-Disposition: form-data; name="b"; filename="-"', "dash"],
    ]);
  });
});

Deno.test("toCurl() renders in-memory file names so curl reads the file of that name", async () => {
  await withSetup(async (setup) => {
    // A name holding `/` or `\\` is cut to its base name: tested elsewhere.
    const names = [...ODD_NAMES, "x;type=text", "y;filename=canary", "z=<canary"]
      .filter((name) => !name.includes("\\"));
    for (const [i, name] of names.entries()) {
      // A replay reads the file of that name in the working directory.
      await Deno.writeTextFile(`${setup.dir}/${name}`, `memory ${i}`);
      await assertReplays(setup, { files: { f: new File([`memory ${i}`], name) } });
      if (!name.includes("=")) {
        await assertReplays(setup, { files: { [name]: new Blob([`memory ${i}`]) } });
      }
    }
  });
});

/** Text built from `-F` syntax, the canary's name and arbitrary characters. */
const formPiece = fc.oneof(
  // Rarer, as one `=` in any name makes the whole request refused.
  { arbitrary: fc.constantFrom(...FORM_PIECES.filter((piece) => piece.includes("="))), weight: 1 },
  { arbitrary: fc.constantFrom(...FORM_PIECES.filter((piece) => !piece.includes("="))), weight: 6 },
  { arbitrary: fc.string({ maxLength: 4 }), weight: 2 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 2 }), weight: 2 },
);
const formText = fc.array(formPiece, { maxLength: 6 }).map((pieces) => pieces.join(""));
/** Mostly not empty, as an empty name makes the whole request refused. */
const formName = fc.array(formPiece, { minLength: 1, maxLength: 6 })
  .map((pieces) => pieces.join(""));

/** A name the file system takes: no `/` or NUL, not empty, `.` or `..`. */
const fileBase = formText.map((text) => {
  const base = text.replaceAll(/[/\0]/g, "");
  return base === "" || base === "." || base === ".." ? `f${base}` : base;
});

Deno.test("toCurl() commands never send a file a name points at, and send what the client sends", async () => {
  const runs = Number(Deno.env.get("TO_CURL_RUNS") ?? 1000);
  await withSetup(async (setup) => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(formName, formText), { maxLength: 3, selector: ([k]) => k }),
        fc.uniqueArray(fc.tuple(formName, fileBase), {
          minLength: 1,
          maxLength: 2,
          selector: ([k]) => k,
        }),
        async (fields, files) => {
          const runDir = await Deno.makeTempDir({ dir: setup.dir });
          try {
            const paths: [string, string][] = [];
            for (const [i, [field, base]] of files.entries()) {
              const path = `${runDir}/${i}${base}`;
              await Deno.writeTextFile(path, `file ${i}: ${base}`);
              paths.push([field, path]);
            }
            const init = { data: Object.fromEntries(fields), files: Object.fromEntries(paths) };
            const names = [...fields.map(([k]) => k), ...files.map(([k]) => k)];
            const texts = [...names, ...fields.map(([, v]) => v), ...paths.map(([, p]) => p)];
            const refused = names.some((name) => name === "" || name.includes("=")) ||
              texts.some((text) => text.includes("\0"));
            const request = new HttpRequest("POST", `${setup.server.url}/upload`, init);
            let command: string;
            try {
              command = toCurl(request);
            } catch (error) {
              assert.ok(error instanceof TypeError && refused, String(error));
              return;
            }
            const viaCurl = await runCurl(command, setup);
            assert.ok(!refused, `rendered what curl cannot replay:\n${command}`);
            await setup.client.request(request);
            const viaClient = setup.server.last();
            assert.deepEqual(partsOf(viaCurl), partsOf(viaClient), command);
          } finally {
            await Deno.remove(runDir, { recursive: true });
          }
        },
      ),
      { numRuns: runs },
    );
  });
});
