// Signing (@fetchline/fetchline/signing) on the npm build under Node (undici
// transport): DPoP proofs checked with jose by a fixture authorization server
// and resource server that demand nonces, Ed25519 and HMAC signatures checked
// by http-message-signatures on node:crypto, and Content-Digest checked
// against node:crypto's own hash of the bytes the server received.

import assert from "node:assert/strict";
import { createHash, createPublicKey } from "node:crypto";
import { test } from "node:test";
import * as jose from "jose";
import { createVerifier, httpbis } from "http-message-signatures";
import {
  clientCredentialsStep,
  HttpClient,
  HttpClientConfigBuilder,
  TokenManager,
} from "@fetchline/fetchline";
import { contentDigest, DPoP, httpSignatures } from "@fetchline/fetchline/signing";
import { fixture, json } from "./server.mjs";
import { settles } from "./helpers.mjs";

const b64url = (bytes) => Buffer.from(bytes).toString("base64url");

/** A client on `url` with `configure`d options and no retries, closed when the test `t` ends. */
function client(t, url, configure) {
  const created = new HttpClient(
    configure(new HttpClientConfigBuilder().withBaseUrl(url).withTimeout(5)).build(),
  );
  t.after(() => created.close());
  return created;
}

/** The proof of a recorded request, verified by jose with the key it embeds. */
async function checkProof(recorded) {
  const proof = recorded.headers.dpop;
  assert.ok(proof, "the request carries a DPoP proof");
  const { payload, protectedHeader } = await jose.jwtVerify(proof, jose.EmbeddedJWK, {
    typ: "dpop+jwt",
    maxTokenAge: "60s",
  });
  assert.equal(protectedHeader.jwk.d, undefined, "no private member in the header");
  assert.equal(typeof payload.jti, "string");
  return {
    payload,
    alg: protectedHeader.alg,
    jkt: await jose.calculateJwkThumbprint(protectedHeader.jwk),
  };
}

test("DPoP: token and API requests carry proofs jose verifies; each server's nonce challenge gets one resend", async (t) => {
  for (const kind of ["ES256", "EdDSA"]) {
    const as = await fixture(t);
    const rs = await fixture(t);
    const log = [];
    const tokens = new Map(); // token → jkt
    as.route("/token", async (_req, res, recorded) => {
      const { payload, alg, jkt } = await checkProof(recorded);
      log.push(["as", payload.nonce, payload.jti]);
      assert.equal(alg, kind);
      assert.equal(payload.htm, "POST");
      assert.equal(payload.htu, `${as.url}/token`);
      assert.equal(payload.ath, undefined, "a token request's proof has no ath");
      if (payload.nonce !== "as-nonce") {
        return json(res, 400, { error: "use_dpop_nonce" }, { "DPoP-Nonce": "as-nonce" });
      }
      const token = `token-${kind}-${tokens.size + 1}`;
      tokens.set(token, jkt);
      json(res, 200, { access_token: token, token_type: "DPoP", expires_in: 3600 });
    });
    rs.route("/api/items", async (req, res, recorded) => {
      const token = /^DPoP (.+)$/.exec(recorded.headers.authorization ?? "")?.[1];
      assert.ok(token, `the DPoP scheme, got ${recorded.headers.authorization}`);
      const { payload, jkt } = await checkProof(recorded);
      log.push(["rs", payload.nonce, payload.jti]);
      assert.equal(tokens.get(token), jkt, "the token is bound to the proof's key");
      assert.equal(payload.htm, "GET");
      assert.equal(payload.htu, `${rs.url}/api/items`, "htu has no query");
      assert.equal(payload.ath, b64url(createHash("sha256").update(token).digest()));
      if (payload.nonce !== "rs-nonce") {
        res.writeHead(401, {
          "WWW-Authenticate": 'DPoP error="use_dpop_nonce"',
          "DPoP-Nonce": "rs-nonce",
        });
        return res.end();
      }
      json(res, 200, { ok: true, query: new URL(req.url, rs.url).search });
    });
    const dpop = kind === "ES256" ? await DPoP.generate() : await DPoP.fromKeyPair(
      await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]),
    );
    assert.equal(dpop.alg, kind);
    const tokenManager = new TokenManager([
      clientCredentialsStep({
        tokenUrl: `${as.url}/token`,
        clientId: "app",
        clientSecret: "s3cret",
        dpop,
      }),
    ]);
    const api = client(
      t,
      rs.url,
      (builder) => builder.withRetry({ maxRetries: 0 }).withTokenAuth({ tokenManager, dpop }),
    );
    const first = await settles(api.get("/api/items", { params: { page: 1 } }));
    assert.equal(first.statusCode, 200);
    assert.deepEqual(first.json(), { ok: true, query: "?page=1" });
    const second = await settles(api.get("/api/items"));
    assert.equal(second.statusCode, 200);
    assert.deepEqual(log.map(([server, nonce]) => [server, nonce]), [
      ["as", undefined],
      ["as", "as-nonce"],
      ["rs", undefined],
      ["rs", "rs-nonce"],
      ["rs", "rs-nonce"], // remembered: no second challenge
    ], kind);
    assert.equal(new Set(log.map(([, , jti]) => jti)).size, log.length, "every proof is new");
    assert.equal(tokens.size, 1);
  }
});

/** Verifies a recorded request's signature with http-message-signatures on node:crypto. */
async function independentlyVerified(server, recorded, keys) {
  const headers = {};
  for (const [name, value] of Object.entries(recorded.headers)) headers[name] = String(value);
  return await httpbis.verifyMessage({
    keyLookup: (params) => {
      const found = keys[String(params.keyid)];
      if (found === undefined) return Promise.resolve(null);
      return Promise.resolve({
        id: String(params.keyid),
        algs: [found.alg],
        verify: createVerifier(found.key, found.alg),
      });
    },
  }, {
    method: recorded.method,
    url: `${server.url}${recorded.path}${recorded.query === "" ? "" : `?${recorded.query}`}`,
    headers,
  });
}

test("httpSignatures: Ed25519 and HMAC signatures verify with http-message-signatures; Content-Digest is node's hash of the bytes received", async (t) => {
  const server = await fixture(t);
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const hmac = await crypto.subtle.importKey(
    "raw",
    secret,
    { name: "HMAC", hash: "SHA-256" },
    false,
    [
      "sign",
    ],
  );
  const spki = Buffer.from(await crypto.subtle.exportKey("spki", pair.publicKey));
  const keys = {
    ed: { key: createPublicKey({ key: spki, format: "der", type: "spki" }), alg: "ed25519" },
    mac: { key: Buffer.from(secret), alg: "hmac-sha256" },
  };
  const signers = [
    { keyId: "ed", key: pair.privateKey, algorithm: "ed25519" },
    { keyId: "mac", key: hmac, algorithm: "hmac-sha256" },
  ];
  for (const signer of signers) {
    const api = client(t, server.url, (builder) =>
      builder.withMiddleware(
        contentDigest({ algorithm: "sha-256" }),
        httpSignatures({
          ...signer,
          components: ["@method", "@target-uri", "@authority", "content-digest", "content-type"],
          expiresIn: "5m",
          includeAlg: true,
        }),
      ));
    assert.equal(
      (await settles(api.post("/orders", { params: { q: "a b" }, jsonData: { id: 7 } })))
        .statusCode,
      200,
    );
    assert.equal(
      (await settles(api.put("/orders/7", { body: new Uint8Array([0, 1, 2, 255]) }))).statusCode,
      200,
    );
  }
  assert.equal(server.requests.length, 4);
  for (const recorded of server.requests) {
    assert.match(
      recorded.headers["signature-input"],
      /^sig1=\("@method" "@target-uri" "@authority" "content-digest" "content-type"\);created=\d+;expires=\d+;alg="(ed25519|hmac-sha256)";keyid="(ed|mac)"$/,
    );
    assert.equal(await independentlyVerified(server, recorded, keys), true, recorded.path);
    const digest = createHash("sha256").update(recorded.body).digest("base64");
    assert.equal(recorded.headers["content-digest"], `sha-256=:${digest}:`);
  }
  // A tampered request does not verify: the verifier is not a yes-machine.
  const tampered = { ...server.requests[0], method: "PUT" };
  assert.equal(await independentlyVerified(server, tampered, keys), false);
});

test("contentDigest: sha-512 of a form, a Blob and a multipart body is node's hash of the bytes received", async (t) => {
  const server = await fixture(t);
  const api = client(
    t,
    server.url,
    (builder) => builder.withMiddleware(contentDigest({ algorithm: "sha-512" })),
  );
  await settles(api.post("/", { data: { a: "1", b: "x y" } }));
  await settles(api.post("/", { body: new Blob(["blob ", "bytes"], { type: "text/csv" }) }));
  await settles(
    api.post("/", { data: { field: "v" }, files: { upload: new File(["file body"], "a.txt") } }),
  );
  await settles(api.get("/"));
  assert.equal(server.requests.length, 4);
  for (const recorded of server.requests.slice(0, 3)) {
    assert.ok(recorded.body.length > 0);
    const digest = createHash("sha512").update(recorded.body).digest("base64");
    assert.equal(recorded.headers["content-digest"], `sha-512=:${digest}:`);
  }
  assert.equal(server.requests[3].headers["content-digest"], undefined, "no body, no digest");
});
