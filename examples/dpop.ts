/**
 * A DPoP-protected API (RFC 9449): the authorization server issues tokens
 * bound to the client's key, and both servers demand a nonce. The client
 * generates a key whose private half cannot be exported, proves possession
 * on the token request and on every API call, answers each server's
 * `use_dpop_nonce` challenge once and remembers the nonce.
 *
 * Run it with `deno task example:dpop`.
 *
 * @module
 */

import {
  clientCredentialsStep,
  HttpClient,
  HttpClientConfigBuilder,
  TokenManager,
} from "@fetchline/fetchline";
import { DPoP } from "@fetchline/fetchline/signing";

const b64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
const fromB64url = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

/** Checks a proof's signature with its own key; returns its payload and the key's thumbprint. */
async function readProof(proof: string | null) {
  const [head, body, signature] = (proof ?? "..").split(".");
  const header = JSON.parse(new TextDecoder().decode(fromB64url(head!)));
  const key = await crypto.subtle.importKey(
    "jwk",
    header.jwk,
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    [
      "verify",
    ],
  );
  const valid = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    key,
    fromB64url(signature!),
    new TextEncoder().encode(`${head}.${body}`),
  );
  if (!valid || header.typ !== "dpop+jwt") throw new Error("bad proof");
  const { crv, kty, x, y } = header.jwk;
  const thumbprint = b64url(
    await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(JSON.stringify({ crv, kty, x, y })),
    ),
  );
  return { payload: JSON.parse(new TextDecoder().decode(fromB64url(body!))), thumbprint };
}

/** The token endpoint and the API, each with its own nonce; tokens remember their key. */
function startServers() {
  const boundTo = new Map<string, string>();
  const seen: string[] = [];
  const auth = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const { payload, thumbprint } = await readProof(request.headers.get("dpop"));
    seen.push(`AS ${payload.nonce === undefined ? "no nonce" : "nonce " + payload.nonce}`);
    if (payload.nonce !== "as-1") {
      return Response.json({ error: "use_dpop_nonce" }, {
        status: 400,
        headers: { "DPoP-Nonce": "as-1" },
      });
    }
    const token = crypto.randomUUID();
    boundTo.set(token, thumbprint);
    return Response.json({ access_token: token, token_type: "DPoP", expires_in: 300 });
  });
  const api = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const token = request.headers.get("authorization")?.replace(/^DPoP /, "") ?? "";
    const { payload, thumbprint } = await readProof(request.headers.get("dpop"));
    seen.push(`API ${payload.htm} ${new URL(payload.htu).pathname} ${payload.nonce ?? "no nonce"}`);
    if (boundTo.get(token) !== thumbprint) return new Response("not your token", { status: 401 });
    if (payload.nonce !== "rs-1") {
      return new Response(null, {
        status: 401,
        headers: { "WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": "rs-1" },
      });
    }
    return Response.json({ account: "ada", balance: 42 });
  });
  return { auth, api, seen };
}

/** Runs the example: two calls, the token fetched once; returns what the servers saw. */
export async function main(print: (line: string) => void = console.log) {
  const { auth, api, seen } = startServers();
  await using _auth = auth;
  await using _api = api;
  const dpop = await DPoP.generate();
  const tokenManager = new TokenManager([
    clientCredentialsStep({
      tokenUrl: `http://127.0.0.1:${auth.addr.port}/token`,
      clientId: "example",
      clientSecret: "example-secret",
      dpop,
    }),
  ]);
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(`http://127.0.0.1:${api.addr.port}`)
    .withTokenAuth({ tokenManager, dpop })
    .build();
  await using client = new HttpClient(config);
  const first = await client.get("/accounts/me", { params: { fields: "balance" } });
  const second = await client.get("/accounts/me");
  print(`key ${await dpop.thumbprint()} (private key extractable: ${dpop.privateKey.extractable})`);
  for (const line of seen) print(line);
  print(`${first.statusCode} ${first.text}`);
  return { seen, bodies: [first.json(), second.json()] };
}

if (import.meta.main) await main();
