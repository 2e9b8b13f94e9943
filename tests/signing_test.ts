// Signing (signing.ts): RFC 9421 signatures checked against the RFC's own
// vectors and an independent verifier (http-message-signatures, on node's
// crypto), RFC 9530 digests against our own hash (node's crypto) of the
// bytes the server received, and DPoP (RFC 9449) proofs checked with jose
// by a fixture authorization server and resource server that demand nonces.

import assert from "node:assert/strict";
import {
  constants,
  createHash,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  verify as nodeVerify,
} from "node:crypto";
import { Buffer } from "node:buffer";
import * as jose from "jose";
import { createSigner, createVerifier, httpbis } from "http-message-signatures";
import {
  ApiKeyAuthHook,
  clientCredentialsStep,
  CompositeAuthHook,
  createClient,
  HttpClient,
  HttpClientConfigBuilder,
  HttpRequest,
  TokenAuthHook,
  TokenManager,
} from "../mod.ts";
import type { Exchange } from "../interfaces.ts";
import {
  contentDigest,
  DPoP,
  httpSignatures,
  verifyRequestSignature,
  verifySignature,
} from "../signing.ts";
import { HttpResponse } from "../models.ts";

const HOST = "127.0.0.1";

/** A server on loopback; `handler` sees each request with its body's bytes. */
function serve(handler: (request: Request, body: Uint8Array) => Response | Promise<Response>) {
  const server = Deno.serve({ hostname: HOST, port: 0, onListen() {} }, async (request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    return await handler(request, body);
  });
  return { server, url: `http://${HOST}:${server.addr.port}` };
}

/** Calls a middleware with a `next` that captures the request it sends. */
async function sentThrough(
  link: (
    r: HttpRequest,
    next: (r: HttpRequest) => Promise<HttpResponse>,
    e: Exchange,
  ) => Promise<HttpResponse>,
  request: HttpRequest,
): Promise<HttpRequest> {
  let sent: HttpRequest | undefined;
  await link(request, (r) => {
    sent = r;
    return Promise.resolve(
      new HttpResponse({
        statusCode: 200,
        request: r,
        headers: {},
        content: new Uint8Array(),
        elapsedMs: 0,
        url: r.url,
      }),
    );
  }, {} as Exchange);
  return sent!;
}

// RFC 9421, Appendix B.1: the test keys, B.2: the test request.
const ED25519_PKCS8 = "MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF";
const SHARED_SECRET =
  "uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ==";
const CREATED = 1618884473;

function testRequest(): HttpRequest {
  return new HttpRequest("POST", "http://example.com/foo?param=Value&Pet=dog", {
    headers: {
      Date: "Tue, 20 Apr 2021 02:07:55 GMT",
      "Content-Type": "application/json",
      "Content-Length": "18",
    },
    body: '{"hello": "world"}',
  });
}

Deno.test("RFC 9421 B.2.6: the Ed25519 signature of the test request is the RFC's", async () => {
  const key = await crypto.subtle.importKey(
    "pkcs8",
    Buffer.from(ED25519_PKCS8, "base64"),
    { name: "Ed25519" },
    false,
    ["sign"],
  );
  const link = httpSignatures({
    keyId: "test-key-ed25519",
    key,
    algorithm: "ed25519",
    label: "sig-b26",
    components: ["date", "@method", "@path", "@authority", "content-type", "content-length"],
    now: () => CREATED * 1000,
  });
  const sent = await sentThrough(link, testRequest());
  assert.equal(
    sent.headers?.["Signature-Input"],
    'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length")' +
      ';created=1618884473;keyid="test-key-ed25519"',
  );
  assert.equal(
    sent.headers?.Signature,
    "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:",
  );
});

Deno.test("RFC 9421 B.2.5: the HMAC-SHA256 signature of the test request is the RFC's", async () => {
  const key = await crypto.subtle.importKey(
    "raw",
    Buffer.from(SHARED_SECRET, "base64"),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
  const link = httpSignatures({
    keyId: "test-shared-secret",
    key,
    algorithm: "hmac-sha256",
    label: "sig-b25",
    components: ["date", "@authority", "content-type"],
    now: () => CREATED * 1000,
  });
  const sent = await sentThrough(link, testRequest());
  assert.equal(
    sent.headers?.["Signature-Input"],
    'sig-b25=("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"',
  );
  assert.equal(sent.headers?.Signature, "sig-b25=:pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=:");
  // And our verifier accepts the RFC's signature over the RFC's request.
  const incoming = new Request("http://example.com/foo?param=Value&Pet=dog", {
    method: "POST",
    headers: { ...sent.headers },
    body: '{"hello": "world"}',
  });
  assert.equal(
    await verifyRequestSignature(incoming, { keys: { "test-shared-secret": key } }),
    true,
  );
});

/** Key pairs of each algorithm, and the node KeyObject an independent verifier uses. */
async function keyPairs() {
  const make = async (params: AlgorithmIdentifier | EcKeyGenParams | RsaHashedKeyGenParams) =>
    await crypto.subtle.generateKey(params, true, ["sign", "verify"]) as CryptoKeyPair;
  const pairs = {
    "ed25519": await make({ name: "Ed25519" }),
    "ecdsa-p256-sha256": await make({ name: "ECDSA", namedCurve: "P-256" }),
    "rsa-pss-sha512": await make({
      name: "RSA-PSS",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-512",
    }),
  } as const;
  return pairs;
}

async function nodePublicKey(key: CryptoKey) {
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", key));
  return createPublicKey({ key: Buffer.from(spki), format: "der", type: "spki" });
}

/** Verifies an incoming request's signature with http-message-signatures (node crypto). */
async function independentlyVerified(
  request: Request,
  keys: Record<string, { key: unknown; alg: string }>,
): Promise<boolean | null> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => headers[name] = value);
  return await httpbis.verifyMessage({
    keyLookup: (params) => {
      const found = keys[String(params.keyid)];
      if (found === undefined) return Promise.resolve(null);
      return Promise.resolve({
        id: String(params.keyid),
        algs: [found.alg],
        verify: found.alg === "rsa-pss-sha512"
          // Deno's node:crypto does not recover the PSS salt length as Node does (Node's
          // own createVerify accepts these): the library's base, node's verify with RFC 9421's 64.
          ? (data: Buffer, signature: Buffer) =>
            Promise.resolve(
              nodeVerify("sha512", data, {
                key: found.key as KeyObject,
                padding: constants.RSA_PKCS1_PSS_PADDING,
                saltLength: 64,
              }, signature),
            )
          : createVerifier(found.key as never, found.alg),
      });
    },
  }, { method: request.method, url: request.url, headers });
}

Deno.test("httpSignatures: every algorithm's signature verifies with an independent verifier", async () => {
  const pairs = await keyPairs();
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const hmac = await crypto.subtle.importKey(
    "raw",
    secret,
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
      "verify",
    ],
  );
  const keys: Record<string, { key: unknown; alg: string }> = {
    hmac: { key: Buffer.from(secret), alg: "hmac-sha256" },
  };
  for (const [alg, pair] of Object.entries(pairs)) {
    keys[alg] = { key: await nodePublicKey(pair.publicKey), alg };
  }
  const verdicts: (boolean | null)[] = [];
  const ours: boolean[] = [];
  const { server, url } = serve(async (request) => {
    verdicts.push(await independentlyVerified(request, keys));
    const publicKeys: Record<string, CryptoKey> = { hmac };
    for (const [alg, pair] of Object.entries(pairs)) publicKeys[alg] = pair.publicKey;
    ours.push(await verifyRequestSignature(request, { keys: publicKeys }));
    return new Response("ok");
  });
  await using _server = server;
  const signers = [
    ...Object.entries(pairs).map(([alg, pair]) => ({ keyId: alg, key: pair.privateKey, alg })),
    { keyId: "hmac", key: hmac, alg: "hmac-sha256" },
  ];
  for (const signer of signers) {
    const config = new HttpClientConfigBuilder().withBaseUrl(url).withMiddleware(
      contentDigest({ algorithm: "sha-512" }),
      httpSignatures({
        keyId: signer.keyId,
        key: signer.key,
        algorithm: signer.alg as "ed25519",
        components: [
          "@method",
          "@target-uri",
          "@authority",
          "@path",
          "@query",
          "content-digest",
          "content-type",
        ],
        expiresIn: "5m",
        includeAlg: true,
      }),
    ).build();
    await using client = new HttpClient(config);
    await client.post("/orders", { params: { page: 2, q: "a b" }, jsonData: { id: 7 } });
  }
  assert.deepEqual(verdicts, [true, true, true, true]);
  assert.deepEqual(ours, [true, true, true, true]);
});

Deno.test("httpSignatures: a redirect hop and a retry are each signed as sent", async () => {
  const { privateKey, publicKey } = (await keyPairs()).ed25519;
  const nodeKey = { k1: { key: await nodePublicKey(publicKey), alg: "ed25519" } };
  const seen: { path: string; verified: boolean | null; input: string }[] = [];
  let tries = 0;
  const { server, url } = serve(async (request) => {
    const path = new URL(request.url).pathname;
    seen.push({
      path,
      verified: await independentlyVerified(request, nodeKey),
      input: request.headers.get("signature-input") ?? "",
    });
    if (path === "/start") {
      return new Response(null, { status: 302, headers: { location: "/next" } });
    }
    return ++tries === 1 ? new Response("busy", { status: 503 }) : new Response("done");
  });
  await using _server = server;
  const config = new HttpClientConfigBuilder().withBaseUrl(url)
    .withRetry({ maxRetries: 1, backoff: 0 })
    .withMiddleware(httpSignatures({
      keyId: "k1",
      key: privateKey,
      algorithm: "ed25519",
      components: ["@method", "@target-uri"],
      nonce: true,
    })).build();
  await using client = new HttpClient(config);
  const response = await client.get("/start");
  assert.equal(response.text, "done");
  assert.deepEqual(seen.map((s) => [s.path, s.verified]), [
    ["/start", true],
    ["/next", true],
    ["/start", true],
    ["/next", true],
  ]);
  // Each exchange has its own signature (its own nonce).
  assert.equal(new Set(seen.map((s) => s.input)).size, 4);
});

Deno.test("httpSignatures: a component the request lacks is a TypeError naming it", async () => {
  const { privateKey } = (await keyPairs()).ed25519;
  const { server, url } = serve(() => new Response("ok"));
  await using _server = server;
  const config = new HttpClientConfigBuilder().withBaseUrl(url).withMiddleware(httpSignatures({
    keyId: "k1",
    key: privateKey,
    algorithm: "ed25519",
    components: ["@method", "x-request-id"],
  })).build();
  await using client = new HttpClient(config);
  await assert.rejects(client.get("/"), (error: Error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /"x-request-id"/);
    return true;
  });
});

Deno.test("httpSignatures: bad options are TypeErrors naming the field", async () => {
  const { privateKey, publicKey } = (await keyPairs()).ed25519;
  assert.throws(
    () => httpSignatures({ keyId: "", key: privateKey, algorithm: "ed25519" }),
    /keyId/,
  );
  assert.throws(
    () => httpSignatures({ keyId: "k", key: privateKey, algorithm: "hmac-sha256" }),
    /Invalid key: hmac-sha256/,
  );
  assert.throws(
    () => httpSignatures({ keyId: "k", key: publicKey, algorithm: "ed25519" }),
    /Invalid key/,
  );
  assert.throws(
    () => httpSignatures({ keyId: "k", key: privateKey, algorithm: "rsa" as "ed25519" }),
    /Invalid algorithm/,
  );
  assert.throws(
    () => httpSignatures({ keyId: "k", key: privateKey, algorithm: "ed25519", expiresIn: "soon" }),
    RangeError,
  );
  assert.throws(
    () =>
      httpSignatures({
        keyId: "k",
        key: privateKey,
        algorithm: "ed25519",
        components: ["@method", "@METHOD"],
      }),
    { name: "TypeError", message: /Invalid components: "@method" is named twice/ },
  );
});

Deno.test("verifySignature: a response signed by an independent signer verifies, a wrong key does not", async () => {
  const { privateKey, publicKey } = (await keyPairs()).ed25519;
  const other = (await keyPairs()).ed25519.publicKey;
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", privateKey));
  const nodePrivate = createPrivateKey({ key: Buffer.from(pkcs8), format: "der", type: "pkcs8" });
  const { server, url } = serve(async (request) => {
    const signed = await httpbis.signMessage(
      {
        key: createSigner(nodePrivate, "ed25519", "server-key"),
        fields: ["@status", "content-type", "@method;req", "@path;req"],
        params: ["created", "keyid"],
      },
      { status: 200, headers: { "content-type": "text/plain" } },
      {
        method: request.method,
        url: request.url,
        headers: {},
      },
    );
    return new Response("signed", { headers: signed.headers as Record<string, string> });
  });
  await using _server = server;
  await using client = createClient(url);
  const response = await client.get("/resource");
  assert.equal(await verifySignature(response, { keys: { "server-key": publicKey } }), true);
  assert.equal(
    await verifySignature(response, {
      keys: new Map([["server-key", publicKey]]),
      required: ["@status"],
    }),
    true,
  );
  assert.equal(await verifySignature(response, { keys: { "server-key": other } }), false);
  assert.equal(await verifySignature(response, { keys: {} }), false);
  assert.equal(
    await verifySignature(response, {
      keys: { "server-key": publicKey },
      required: ["content-digest"],
    }),
    false,
  );
  await assert.rejects(
    verifySignature(response, { keys: { "server-key": "pem" as never } }),
    TypeError,
  );
  await assert.rejects(verifySignature({} as HttpResponse, { keys: {} }), TypeError);
});

Deno.test("contentDigest: the digest is our own hash of the bytes the server received, for every body kind", async () => {
  const received: { header: string | null; bytes: Uint8Array; type: string | null }[] = [];
  const { server, url } = serve((request, bytes) => {
    received.push({
      header: request.headers.get("content-digest"),
      bytes,
      type: request.headers.get("content-type"),
    });
    return new Response("ok");
  });
  await using _server = server;
  for (const algorithm of ["sha-256", "sha-512"] as const) {
    const config = new HttpClientConfigBuilder().withBaseUrl(url)
      .withMiddleware(contentDigest({ algorithm })).build();
    await using client = new HttpClient(config);
    await client.post("/", { jsonData: { hello: "world", n: [1, 2] } });
    await client.post("/", { data: { a: "1", b: "x y" } });
    await client.post("/", { body: "plain text é" });
    await client.post("/", { body: new Uint8Array([0, 1, 2, 255]) });
    await client.post("/", { body: new Blob(["blob ", "bytes"], { type: "text/csv" }) });
    await client.post("/", {
      data: { field: "v" },
      files: { upload: new File(["file body"], "a.txt") },
    });
    await client.get("/");
  }
  assert.equal(received.length, 14);
  for (const [index, { header, bytes }] of received.entries()) {
    const algorithm = index < 7 ? "sha256" : "sha512";
    if (index % 7 === 6) {
      assert.equal(header, null, "a request without a body gets no digest");
      continue;
    }
    const expected = createHash(algorithm).update(bytes).digest("base64");
    assert.equal(header, `${algorithm.replace("sha", "sha-")}=:${expected}:`);
  }
  assert.equal(received[4]!.type, "text/csv");
  assert.match(received[5]!.type ?? "", /^multipart\/form-data; ?boundary=/);
});

Deno.test("contentDigest: a stream body is a TypeError that says the runtime cannot send trailers", async () => {
  const { server, url } = serve(() => new Response("ok"));
  await using _server = server;
  const config = new HttpClientConfigBuilder().withBaseUrl(url)
    .withMiddleware(contentDigest()).build();
  await using client = new HttpClient(config);
  await assert.rejects(client.post("/", { body: new Blob(["x"]).stream() }), (error: Error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /ReadableStream/);
    assert.match(error.message, /trailer/);
    return true;
  });
  assert.throws(() => contentDigest({ algorithm: "md5" as "sha-256" }), /Invalid algorithm/);
});

// DPoP: an authorization server and a resource server that check each proof
// with jose and demand a nonce, as RFC 9449 lets them.

interface Proof {
  readonly payload: jose.JWTPayload & { htm?: string; htu?: string; ath?: string; nonce?: string };
  readonly jkt: string;
}

async function checkProof(request: Request): Promise<Proof> {
  const proof = request.headers.get("dpop");
  assert.ok(proof, "the request carries a DPoP proof");
  const { payload, protectedHeader } = await jose.jwtVerify(proof, jose.EmbeddedJWK, {
    typ: "dpop+jwt",
    maxTokenAge: "60s",
  });
  assert.equal(protectedHeader.alg, "ES256");
  assert.equal(
    (protectedHeader.jwk as Record<string, unknown>)?.d,
    undefined,
    "no private member in the header",
  );
  assert.equal(typeof payload.jti, "string");
  assert.equal(typeof payload.iat, "number");
  return { payload, jkt: await jose.calculateJwkThumbprint(protectedHeader.jwk!, "sha256") };
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

function dpopServers() {
  const log: {
    server: "as" | "rs";
    path: string;
    nonce?: string | undefined;
    jti: string;
    htu?: string | undefined;
    authorization?: string | null;
  }[] = [];
  const tokens = new Map<string, string>(); // token → jkt
  let count = 0;
  const handle = async (request: Request) => {
    const path = new URL(request.url).pathname;
    const url = new URL(request.url).origin;
    if (path === "/token") {
      const { payload, jkt } = await checkProof(request);
      log.push({ server: "as", path, nonce: payload.nonce, jti: payload.jti!, htu: payload.htu });
      assert.equal(payload.htm, "POST");
      assert.equal(payload.htu, `${url}/token`);
      if (payload.nonce !== "as-nonce-1") {
        return Response.json({ error: "use_dpop_nonce" }, {
          status: 400,
          headers: { "DPoP-Nonce": "as-nonce-1" },
        });
      }
      const token = `token-${++count}`;
      tokens.set(token, jkt);
      return Response.json({ access_token: token, token_type: "DPoP", expires_in: 3600 });
    }
    if (path === "/moved") {
      log.push({
        server: "rs",
        path,
        jti: "",
        authorization: request.headers.get("authorization"),
      });
      return new Response(null, { status: 307, headers: { location: "/api/items?page=3" } });
    }
    if (path === "/away") {
      return new Response(null, { status: 302, headers: { location: `${otherUrl}/elsewhere` } });
    }
    const authorization = request.headers.get("authorization") ?? "";
    const token = /^DPoP (.+)$/.exec(authorization)?.[1];
    assert.ok(token, `DPoP scheme, got ${authorization}`);
    const { payload, jkt } = await checkProof(request);
    log.push({ server: "rs", path, nonce: payload.nonce, jti: payload.jti!, htu: payload.htu });
    assert.equal(tokens.get(token), jkt, "the token is bound to the proof's key");
    assert.equal(payload.htu, `${url}${path}`, "htu has no query");
    assert.equal(payload.htm, request.method);
    const ath = b64url(createHash("sha256").update(token).digest());
    assert.equal(payload.ath, ath);
    if (payload.nonce !== "rs-nonce-1") {
      return new Response("nonce please", {
        status: 401,
        headers: {
          "WWW-Authenticate":
            'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"',
          "DPoP-Nonce": "rs-nonce-1",
        },
      });
    }
    if (path === "/api/flaky" && log.filter((entry) => entry.path === path).length === 1) {
      return new Response("busy", { status: 503 });
    }
    return Response.json({ ok: true, path });
  };
  const { server, url } = serve(handle);
  const authorization = serve(handle);
  const other: Headers[] = [];
  const elsewhere = serve((request) => {
    other.push(new Headers(request.headers));
    return new Response("elsewhere");
  });
  const otherUrl = elsewhere.url.replace(HOST, "localhost");
  const servers = {
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await authorization.server.shutdown();
      await elsewhere.server.shutdown();
    },
  };
  return { servers, url, tokenUrl: `${authorization.url}/token`, log, other };
}

async function dpopClient(url: string, tokenUrl: string, maxRetries = 0) {
  const dpop = await DPoP.generate();
  const tokenManager = new TokenManager([
    clientCredentialsStep({
      tokenUrl,
      clientId: "app",
      clientSecret: "s3cret",
      dpop,
    }),
  ]);
  const config = new HttpClientConfigBuilder().withBaseUrl(url)
    .withRetry({ maxRetries, backoff: 0 })
    .withTokenAuth({ tokenManager, dpop })
    .build();
  return { client: new HttpClient(config), dpop };
}

Deno.test("DPoP: the token request and each API request carry proofs; nonce challenges get one resend and are remembered", async () => {
  const { servers, url, tokenUrl, log } = dpopServers();
  await using _servers = servers;
  const { client, dpop } = await dpopClient(url, tokenUrl);
  await using _client = client;
  assert.equal(dpop.privateKey.extractable, false);
  const first = await client.get("/api/items", { params: { page: 1 } });
  assert.equal(first.statusCode, 200);
  assert.deepEqual(log.map((entry) => [entry.server, entry.nonce]), [
    ["as", undefined],
    ["as", "as-nonce-1"],
    ["rs", undefined],
    ["rs", "rs-nonce-1"],
  ]);
  // The nonce is remembered: the next call needs no resend.
  const second = await client.post("/api/items", { jsonData: { name: "x" } });
  assert.equal(second.statusCode, 200);
  assert.equal(log.length, 5);
  assert.equal(log[4]!.nonce, "rs-nonce-1");
  // Every proof is new.
  assert.equal(new Set(log.map((entry) => entry.jti)).size, log.length);
});

Deno.test("DPoP: a redirect hop and a retry each get a new proof for their own URL", async () => {
  const { servers, url, tokenUrl, log } = dpopServers();
  await using _servers = servers;
  const { client } = await dpopClient(url, tokenUrl, 1);
  await using _client = client;
  assert.equal((await client.get("/api/items")).statusCode, 200); // token and nonces
  const before = log.length;
  const moved = await client.get("/moved");
  assert.equal(moved.statusCode, 200);
  const hop = log.slice(before).filter((entry) => entry.path === "/api/items");
  assert.equal(hop.length, 1);
  assert.equal(hop[0]!.htu, `${url}/api/items`);
  const flaky = await client.get("/api/flaky");
  assert.equal(flaky.statusCode, 200);
  const tries = log.filter((entry) => entry.path === "/api/flaky");
  assert.equal(tries.length, 2);
  assert.notEqual(tries[0]!.jti, tries[1]!.jti);
});

Deno.test("DPoP: a hop to another origin gets neither token nor proof", async () => {
  const { servers, url, tokenUrl, other } = dpopServers();
  await using _servers = servers;
  const { client } = await dpopClient(url, tokenUrl);
  await using _client = client;
  const response = await client.get("/away");
  assert.equal(response.text, "elsewhere");
  assert.equal(other.length, 1);
  assert.equal(other[0]!.get("authorization"), null);
  assert.equal(other[0]!.get("dpop"), null);
});

Deno.test("DPoP: proofs never reach the logs, and views show the public key only", async () => {
  const { servers, url, tokenUrl } = dpopServers();
  await using _servers = servers;
  const dpop = await DPoP.generate();
  const lines: string[] = [];
  const logger = {
    debug: (...args: unknown[]) => lines.push(args.map(String).join(" ")),
    info: (...args: unknown[]) => lines.push(args.map(String).join(" ")),
    warn: (...args: unknown[]) => lines.push(args.map(String).join(" ")),
    error: (...args: unknown[]) => lines.push(args.map(String).join(" ")),
  };
  const tokenManager = new TokenManager([
    clientCredentialsStep({ tokenUrl, clientId: "app", clientSecret: "s3cret", dpop }),
  ]);
  const config = new HttpClientConfigBuilder().withBaseUrl(url)
    .withLogging({ logger, logHeaders: true })
    .withTokenAuth({ tokenManager, dpop })
    .build();
  await using client = new HttpClient(config);
  assert.equal((await client.get("/api/items")).statusCode, 200);
  const text = lines.join("\n");
  assert.ok(lines.length > 0);
  assert.doesNotMatch(text, /eyJ[\w-]+\.eyJ/, "no JWT in the logs");
  assert.doesNotMatch(text, /token-1/, "no access token in the logs");
  assert.equal(String(dpop), "DPoP(ES256, EC P-256)");
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(dpop))), ["alg", "publicJwk"]);
  assert.doesNotMatch(Deno.inspect(dpop), /privateKey|"d"/);
});

Deno.test("DPoP: a token endpoint that does not bind the token fails the step", async () => {
  const { server, url } = serve(() =>
    Response.json({ access_token: "plain", token_type: "Bearer" })
  );
  await using _server = server;
  const dpop = await DPoP.generate();
  const manager = new TokenManager([
    clientCredentialsStep({
      tokenUrl: `${url}/token`,
      clientId: "app",
      clientSecret: "s3cret",
      dpop,
    }),
  ]);
  await assert.rejects(manager.getToken(), /not DPoP-bound/);
});

Deno.test("DPoP: bad key pairs and options are TypeErrors naming the field", async () => {
  const hmac = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  await assert.rejects(
    DPoP.fromKeyPair({ privateKey: hmac, publicKey: hmac } as CryptoKeyPair),
    /keyPair/,
  );
  const dpop = await DPoP.generate();
  const manager = new TokenManager([{
    name: "t",
    fetch: () => Promise.reject(new Error("unused")),
  }]);
  assert.throws(
    () =>
      new HttpClientConfigBuilder().withTokenAuth({
        tokenManager: manager,
        dpop,
        authHeaderPrefix: "Bearer",
      }),
    /authHeaderPrefix/,
  );
  assert.throws(
    () => new HttpClientConfigBuilder().withTokenAuth({ tokenManager: manager, dpop: {} as DPoP }),
    /Invalid dpop/,
  );
  await assert.rejects(dpop.proof({ method: "GET", url: "/relative" }), /Invalid url/);
});

Deno.test("DPoP: each proof's ath is the hash of its own access token, as the token changes", async () => {
  const ed25519 = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
  for (const pair of [undefined, ed25519 as CryptoKeyPair]) {
    const dpop = pair === undefined ? await DPoP.generate() : await DPoP.fromKeyPair(pair);
    for (const token of ["token-one", "token-one", "token-two", "token-one"]) {
      const proof = await dpop.proof({
        method: "GET",
        url: "http://127.0.0.1/items",
        accessToken: token,
      });
      const { payload, protectedHeader } = await jose.jwtVerify(proof, jose.EmbeddedJWK, {
        typ: "dpop+jwt",
      });
      assert.equal(protectedHeader.alg, dpop.alg);
      assert.equal(payload.ath, b64url(createHash("sha256").update(token).digest()), token);
    }
  }
});

Deno.test("DPoP: a token hook inside a CompositeAuthHook still gives each request its proof", async () => {
  const { servers, url, tokenUrl, log } = dpopServers();
  await using _servers = servers;
  const dpop = await DPoP.generate();
  const tokenManager = new TokenManager([
    clientCredentialsStep({ tokenUrl, clientId: "app", clientSecret: "s3cret", dpop }),
  ]);
  const hook = new CompositeAuthHook([
    new ApiKeyAuthHook("api-key", { excludedPathPatterns: ["/api/*"] }),
    new TokenAuthHook(tokenManager, { dpop }),
  ]);
  const config = new HttpClientConfigBuilder().withBaseUrl(url).withRetry({ maxRetries: 0 })
    .withAuthHook(hook).build();
  await using client = new HttpClient(config);
  const response = await client.get("/api/items");
  assert.equal(response.statusCode, 200, response.text);
  assert.deepEqual(log.map((entry) => [entry.server, entry.nonce]), [
    ["as", undefined],
    ["as", "as-nonce-1"],
    ["rs", undefined],
    ["rs", "rs-nonce-1"],
  ]);
  // Two DPoP keys in one composite: a proof's link could not tell whose token it proves.
  const other = new TokenAuthHook(tokenManager, { dpop: await DPoP.generate() });
  assert.throws(
    () => new CompositeAuthHook([new TokenAuthHook(tokenManager, { dpop }), other]),
    { name: "TypeError", message: /Invalid hooks: 2 hooks bind tokens to a DPoP key/ },
  );
});
