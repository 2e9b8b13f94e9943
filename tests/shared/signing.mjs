// Signing (API.md "Signing") on each runtime's WebCrypto and transport:
// Content-Digest (RFC 9530) and HTTP Message Signatures (RFC 9421) with
// HMAC-SHA256 and Ed25519, each checked by the fixture on its own
// (routes/signing.mjs: node:crypto's hash of the bytes it received, and the
// signature verified over the base it rebuilds from the request as
// received). The keys are RFC 9421's test keys (Appendix B.1). DPoP, a
// redirect and a retry, the RFC's vectors and the independent verifiers are
// in the Deno suite (tests/signing_test.ts) and the Node one
// (tests/node/signing.test.mjs).

/** RFC 9421 B.1.4's Ed25519 private key (PKCS#8), as routes/signing.mjs has it. */
const ED25519_PKCS8 = "MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF";
/** RFC 9421 B.1.5's HMAC-SHA256 shared secret, base64. */
const SHARED_SECRET =
  "uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ==";

/** Where WebCrypto has Ed25519 (every runtime the suite runs on, today). */
const ED25519_RUNTIMES = ["deno", "node", "bun", "workerd", "chromium", "firefox"];

const bytesOf = (base64) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));

const COMPONENTS = [
  "@method",
  "@target-uri",
  "@authority",
  "@path",
  "@query",
  "content-digest",
  "content-type",
];

export default function ({ lib, fixture, assert }) {
  /** Runs `body` with a client of the fixture that has `middleware`, no retries. */
  async function withClient(middleware, body) {
    const http = new lib.HttpClient(
      new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withTimeout(10)
        .withRetry({ maxRetries: 0 }).withMiddleware(...middleware).build(),
    );
    try {
      return await body(http);
    } finally {
      http.close();
    }
  }

  /** Signs with `key` under `keyId`, then checks what the fixture found, and that a tampered request fails. */
  async function signedAndChecked(keyId, key, algorithm) {
    const signer = lib.httpSignatures({
      keyId,
      key,
      algorithm,
      components: COMPONENTS,
      expiresIn: "5m",
      includeAlg: true,
    });
    await withClient([lib.contentDigest({ algorithm: "sha-256" }), signer], async (http) => {
      const response = await http.post("/signing/check", {
        params: { q: "a b", n: 1 },
        jsonData: { id: 7, note: "é" },
      });
      const { digest, signature } = response.json();
      assert.equal(digest.header, digest.own, "the digest is the fixture's hash of the bytes");
      assert.equal(signature.keyid, keyId);
      assert.equal(signature.alg, algorithm);
      assert.equal(signature.verified, true, `the fixture's base:\n${signature.base}`);
      const put = (await http.put("/signing/check", { body: new Uint8Array([0, 1, 2, 255]) }))
        .json();
      assert.equal(put.digest.header, put.digest.own);
      assert.equal(put.signature.verified, true, `the fixture's base:\n${put.signature.base}`);
    });
    // A link inside the signer that changes a covered header: the fixture must refuse it.
    const tamper = (request, next) =>
      next(request.withHeaders({ "Content-Type": "application/x-tampered" }));
    await withClient(
      [lib.contentDigest({ algorithm: "sha-256" }), signer, tamper],
      async (http) => {
        const { signature } = (await http.post("/signing/check", { body: "text" })).json();
        assert.equal(signature.verified, false, "a changed content-type does not verify");
      },
    );
  }

  return {
    "contentDigest: sha-256 and sha-512 are the fixture's own hash of the bytes it received":
      async () => {
        for (const algorithm of ["sha-256", "sha-512"]) {
          await withClient([lib.contentDigest({ algorithm })], async (http) => {
            const bodies = [
              { jsonData: { hello: "world", n: [1, 2] } },
              { body: "plain text é" },
              { body: new Uint8Array([0, 1, 2, 255]) },
              { data: { a: "1", b: "x y" } },
              { body: new Blob(["blob ", "bytes"], { type: "text/csv" }) },
            ];
            for (const options of bodies) {
              const { digest } = (await http.post("/signing/check", options)).json();
              assert.ok(digest.bytes > 0, "the body reached the fixture");
              assert.match(digest.header ?? "", new RegExp(`^${algorithm}=:`), "the header");
              assert.equal(digest.header, digest.own, `${algorithm} of ${Object.keys(options)[0]}`);
            }
            const none = (await http.get("/signing/check")).json();
            assert.equal(none.digest.header, null, "a request without a body gets no digest");
          });
        }
      },
    "httpSignatures: an HMAC-SHA256 signature verifies at the fixture": async () => {
      const key = await crypto.subtle.importKey(
        "raw",
        bytesOf(SHARED_SECRET),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      await signedAndChecked("test-shared-secret", key, "hmac-sha256");
    },
    "httpSignatures: an Ed25519 signature verifies at the fixture": {
      runtimes: ED25519_RUNTIMES,
      reason: "this runtime's WebCrypto has no Ed25519",
      run: async () => {
        const key = await crypto.subtle.importKey(
          "pkcs8",
          bytesOf(ED25519_PKCS8),
          { name: "Ed25519" },
          false,
          ["sign"],
        );
        await signedAndChecked("test-key-ed25519", key, "ed25519");
      },
    },
  };
}
