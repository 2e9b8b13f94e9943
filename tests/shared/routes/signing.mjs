// Routes of the signing area. `/signing/check` reads the request's body and
// answers what the fixture finds on its own, with node:crypto and none of the
// library's code: `digest` (the Content-Digest header as received, and
// `sha-256=:…:` / `sha-512=:…:` of the bytes received, the algorithm the
// header names), and `signature` (`verified`: whether the `sig1` signature
// verifies over the signature base this route rebuilds by RFC 9421's rules
// from the request as received; `keyid`, `alg`, `base`). The keys are RFC
// 9421's test keys (Appendix B.1): `test-key-ed25519` and
// `test-shared-secret` (HMAC-SHA256).

import { Buffer } from "node:buffer";
import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  timingSafeEqual,
  verify,
} from "node:crypto";
import { json, readBody } from "./http.mjs";

/** RFC 9421 B.1.4's Ed25519 private key (PKCS#8): the fixture uses its public half. */
export const ED25519_PKCS8 = "MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF";
/** RFC 9421 B.1.5's HMAC-SHA256 shared secret, base64. */
export const SHARED_SECRET =
  "uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ==";

const ed25519 = createPublicKey(
  createPrivateKey({ key: Buffer.from(ED25519_PKCS8, "base64"), format: "der", type: "pkcs8" }),
);

/** The value of the `label` member of a dictionary header, as its text (a small RFC 8941 reader). */
function member(header, label) {
  let rest = header ?? "";
  while (rest.length > 0) {
    const found = /^\s*([a-z*][a-z0-9_\-.*]*)=/.exec(rest);
    if (found === null) return undefined;
    rest = rest.slice(found[0].length);
    // A member runs to the next comma outside quotes and parentheses.
    let depth = 0;
    let quoted = false;
    let end = 0;
    for (; end < rest.length; end++) {
      const char = rest[end];
      if (quoted) {
        if (char === "\\") end++;
        else if (char === '"') quoted = false;
      } else if (char === '"') quoted = true;
      else if (char === "(") depth++;
      else if (char === ")") depth--;
      else if (char === "," && depth === 0) break;
    }
    if (found[1] === label) return rest.slice(0, end).trim();
    rest = rest.slice(end + 1);
  }
  return undefined;
}

/** The value of one covered component (RFC 9421 §2) of the request as received. */
function componentValue(req, name) {
  const url = new URL(req.url, `http://${req.headers.host}`);
  switch (name) {
    case "@method":
      return req.method;
    case "@target-uri":
      return `http://${req.headers.host}${req.url}`;
    case "@authority":
      return req.headers.host.toLowerCase();
    case "@path":
      return url.pathname;
    case "@query":
      return url.search === "" ? "?" : url.search;
    default: {
      const value = req.headers[name];
      return value === undefined ? undefined : String(value).trim();
    }
  }
}

/** Whether `sig1` verifies, with what the fixture rebuilt. */
function checkSignature(req) {
  const input = member(req.headers["signature-input"], "sig1");
  const signature = /^:([A-Za-z0-9+/=]*):$/.exec(member(req.headers.signature, "sig1") ?? "")?.[1];
  if (input === undefined || signature === undefined) {
    return { verified: false, reason: "unsigned" };
  }
  const list = /^\(([^)]*)\)/.exec(input);
  const keyid = /;keyid="([^"]*)"/.exec(input)?.[1];
  const alg = /;alg="([^"]*)"/.exec(input)?.[1];
  if (list === null) return { verified: false, reason: "no inner list" };
  const lines = [];
  for (const quoted of list[1].split(" ").filter(Boolean)) {
    const name = /^"([^"]+)"$/.exec(quoted)?.[1];
    const value = name === undefined ? undefined : componentValue(req, name);
    if (value === undefined) return { verified: false, reason: `no ${quoted}` };
    lines.push(`${quoted}: ${value}`);
  }
  lines.push(`"@signature-params": ${input}`);
  const base = Buffer.from(lines.join("\n"));
  const bytes = Buffer.from(signature, "base64");
  let verified = false;
  if (keyid === "test-key-ed25519") verified = verify(null, base, ed25519, bytes);
  if (keyid === "test-shared-secret") {
    const mac = createHmac("sha256", Buffer.from(SHARED_SECRET, "base64")).update(base).digest();
    verified = mac.length === bytes.length && timingSafeEqual(mac, bytes);
  }
  return { verified, keyid, alg, base: lines.join("\n") };
}

export const routes = {
  "/signing/check": async (req, res) => {
    const body = await readBody(req);
    const header = req.headers["content-digest"];
    const algorithm = /^(sha-256|sha-512)=/.exec(header ?? "")?.[1] ?? "sha-256";
    const own = createHash(algorithm.replace("-", "")).update(body).digest("base64");
    json(res, 200, {
      digest: { header: header ?? null, own: `${algorithm}=:${own}:`, bytes: body.length },
      signature: checkSignature(req),
    });
  },
};
