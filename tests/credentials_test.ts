// One definition of a credential, every path: the same table of header
// names and JSON fields is checked in log lines, error messages, views, HAR
// files, cache stores, and on the hops that leave the origin (a redirect and
// a pagination link), against two real fixture servers.

import assert from "node:assert/strict";
import {
  ApiKeyAuthHook,
  AuthorizationHook,
  HttpClient,
  HttpClientConfigBuilder,
  HttpStatusException,
} from "../mod.ts";
import { type CacheEntry, HttpCache, MemoryCacheStore } from "../cache.ts";
import { HarRecorder } from "../har.ts";
import { paginate } from "../paginate.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { recordingLogger } from "./helpers.ts";

/** Each credential header the client sends, by who sets it, with a value found nowhere else. */
const SENT_HEADERS: Record<string, string> = {
  // The fixed names.
  "Authorization": "Bearer bearer-from-hook-4411",
  "X-API-Key": "fixed-api-key-4412",
  "Cookie": "session=cookie-value-4413",
  // Names that look like credentials.
  "X-Auth-Token": "auth-token-4414",
  "Private-Token": "private-token-4415",
  "X-Vault-Token": "vault-token-4416",
  // An auth hook's declared header, withCredentialHeaders' add, withLogging's sensitiveKeys.
  "X-Client-Code": "client-code-4417",
  "X-Tenant-Pin": "tenant-pin-4418",
  "X-Org-Code": "org-code-4419",
};

/** A header that only looks like a credential, named in `except`: shown and kept. */
const IDEMPOTENCY_KEY = "idem-4420";

/** JSON fields of a request body that hold credentials without looking like them. */
const SENT_FIELDS = {
  pwd: "pwd-4421",
  jwt: "jwt-4422",
  client_assertion: "assertion-4423",
  signature: "signature-4424",
  code_verifier: "verifier-4425",
  otp: "otp-4426",
};

/** What the server answers that is a credential: a login's token header and body fields. */
const ANSWERED = {
  subjectToken: "subject-token-4427",
  jwt: "answer-jwt-4428",
  pwd: "answer-pwd-4429",
};

const SECRETS = [
  ...Object.values(SENT_HEADERS).map((value) => value.replace(/^(Bearer |session=)/, "")),
  ...Object.values(SENT_FIELDS),
  ...Object.values(ANSWERED),
];

function assertNoSecret(where: string, text: string): void {
  for (const secret of SECRETS) {
    assert.ok(!text.includes(secret), `${where} shows ${secret}: ${text.slice(0, 2000)}`);
  }
}

/**
 * A store that keeps in memory everything the cache wrote, as text: the keys
 * and what the cache stores of a response but its body (`written`), and the
 * bodies, which are the server's data as it sent them (`bodies`).
 */
function recordingStore(): { store: MemoryCacheStore; written: string[]; bodies: string[] } {
  const store = new MemoryCacheStore();
  const written: string[] = [];
  const bodies: string[] = [];
  const set = store.set.bind(store);
  store.set = (key: string, entry: CacheEntry, ttlMs: number) => {
    written.push(key, JSON.stringify(entry.meta));
    bodies.push(new TextDecoder().decode(entry.body));
    return set(key, entry, ttlMs);
  };
  return { store, written, bodies };
}

function routes(api: FixtureServer, other: FixtureServer): void {
  // A login-like answer: it quotes the sent token back and carries credentials of its own.
  api.route("/me", (request) =>
    Response.json(
      { jwt: ANSWERED.jwt, pwd: ANSWERED.pwd, ok: true },
      {
        headers: {
          "Cache-Control": "max-age=60",
          "X-Subject-Token": ANSWERED.subjectToken,
          "X-Echo": request.headers.get("x-auth-token") ?? "",
          "X-Echo-Code": request.headers.get("x-client-code") ?? "",
          "Link": `<${other.url}/page2>; rel="next"`,
        },
      },
    ));
  api.route("/refused", (request) =>
    Response.json(
      { error: `token ${request.headers.get("x-vault-token")} refused` },
      { status: 401 },
    ));
  api.route("/hop", () => Response.redirect(`${other.url}/landing`, 307));
  other.route("/landing", () => Response.json({ landed: true }));
  other.route("/page2", () => Response.json({ last: true }));
}

function clientFor(api: FixtureServer, store: MemoryCacheStore, recorder: HarRecorder) {
  const { logger, lines } = recordingLogger();
  const { Authorization: _, "X-Client-Code": __, ...defaults } = SENT_HEADERS;
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(api.url)
    .withHeaders({ ...defaults, "Idempotency-Key": IDEMPOTENCY_KEY })
    .withCredentialHeaders({ add: ["X-Tenant-Pin"], except: ["Idempotency-Key"] })
    .withLogging({ logHeaders: true, logBody: true, logger, sensitiveKeys: ["X-Org-Code"] })
    .withRequestHook(new AuthorizationHook(() => "bearer-from-hook-4411"))
    .withAuthHook(new ApiKeyAuthHook("client-code-4417", { headerName: "X-Client-Code" }))
    .withMiddleware(recorder, new HttpCache({ store }))
    .build();
  return { client: new HttpClient(config), lines };
}

const CREDENTIAL_NAMES = Object.keys(SENT_HEADERS).map((name) => name.toLowerCase());

Deno.test("credentials: every credential header and field is masked in logs, views, errors, HAR and the cache store", async () => {
  await using api = startFixtureServer();
  await using other = startFixtureServer();
  routes(api, other);
  const { store, written, bodies } = recordingStore();
  const recorder = new HarRecorder();
  const { client, lines } = clientFor(api, store, recorder);
  await using _ = client;

  const response = await client.get("/me");
  const posted = await client.post("/echo", { jsonData: { ...SENT_FIELDS, name: "ada" } });
  const error = await client.get("/refused").then((refused) => refused.raiseForStatus()).then(
    () => assert.fail("expected a 401"),
    (error: unknown) => error,
  );
  assert.ok(error instanceof HttpStatusException);

  // The server got every credential: the test sends what it means to.
  const sent = api.requests.find((request) => request.path === "/me")!;
  for (const name of CREDENTIAL_NAMES) assert.ok(sent.headers[name], `${name} was not sent`);

  const log = lines.map(([, line]) => line).join("\n");
  assertNoSecret("a log line", log);
  assert.ok(log.includes(IDEMPOTENCY_KEY), "an excepted header is logged as it is");
  for (const value of [response, response.request, posted, posted.request, error, client.config]) {
    assertNoSecret("String()", String(value));
    assertNoSecret("JSON.stringify()", JSON.stringify(value));
    assertNoSecret("console.log()", Deno.inspect(value, { depth: 10 }));
  }
  assert.ok(JSON.stringify(response.request).includes(IDEMPOTENCY_KEY));
  assertNoSecret("the error message", error.message);
  assertNoSecret("the HAR file", JSON.stringify(recorder.toHar()));
  assert.ok(written.length > 0, "the cache stored the answer");
  assertNoSecret("the cache store", written.join("\n"));
  // A stored body is the server's answer as it was (a login's token is its data), unless it
  // quotes what the call sent.
  assert.ok(bodies.some((body) => body.includes(ANSWERED.jwt)));
  for (const secret of SECRETS.filter((secret) => !Object.values(ANSWERED).includes(secret))) {
    assert.ok(!bodies.join("\n").includes(secret), `a stored body shows ${secret}`);
  }
});

Deno.test("credentials: a redirect and a pagination link to another origin carry no credential header", async () => {
  await using api = startFixtureServer();
  await using other = startFixtureServer();
  routes(api, other);
  const { client } = clientFor(api, new MemoryCacheStore(), new HarRecorder());
  await using _ = client;

  assert.deepEqual((await client.get("/hop")).json(), { landed: true });
  const pages = [];
  for await (const page of paginate(client, "/me")) pages.push(page.url);
  assert.deepEqual(pages, [`${api.url}/me`, `${other.url}/page2`]);

  assert.deepEqual(other.requests.map((request) => request.path), ["/landing", "/page2"]);
  for (const received of other.requests) {
    for (const name of CREDENTIAL_NAMES) {
      assert.equal(received.headers[name], undefined, `${name} reached ${received.path}`);
    }
    assert.equal(received.headers["idempotency-key"], IDEMPOTENCY_KEY);
  }
  // The first origin got them all, each time.
  for (const received of api.requests) {
    for (const name of CREDENTIAL_NAMES) assert.ok(received.headers[name], `${name} missing`);
  }
});

Deno.test("credentials: withCredentialHeaders refuses what is no list of header names, and an except of a fixed one", () => {
  const builder = new HttpClientConfigBuilder();
  assert.throws(
    () => builder.withCredentialHeaders({ add: "X-Pin" as unknown as string[] }),
    /Invalid add: expected an array of header names/,
  );
  assert.throws(
    () => builder.withCredentialHeaders({ add: ["bad name"] }),
    /Invalid add\[0\]: expected a header name/,
  );
  assert.throws(
    () => builder.withCredentialHeaders({ except: ["Authorization"] }),
    /Invalid except: "authorization" always carries a credential/,
  );
  assert.throws(
    () => builder.withCredentialHeaders({ ad: [] } as never),
    /unknown key "ad"/,
  );
});
