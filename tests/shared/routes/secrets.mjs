// Routes for the secrets area: an identity provider and an API that check
// credentials for real, so the whole flow (token fetch, 401, refresh, Basic,
// API key, a session cookie) runs over the wire. State lives under the `run`
// query parameter the test picks: `/secrets/api` accepts the tokens that
// `/secrets/token` issued for that run until `/secrets/revoke` forgets them.
// `/secrets/slow` answers after two seconds, for a call that times out;
// `/secrets/error-body` fails with a body that quotes the call's credentials.

import { Buffer } from "node:buffer";

const CLIENT_SECRET = "cl1ent-s3cret";
const PASSWORD = "p4ssw0rd-s3cret";
const API_KEY = "ap1-k3y-s3cret";
const SESSION = "s3ssion-s3cret";
const TOKEN = "acc3ss-t0ken-";
const REFRESH_TOKEN = "r3fresh-t0ken-s3cret";

function validOf(req, state) {
  const run = `secrets:${new URL(req.url, "http://fixture").searchParams.get("run")}`;
  if (!state.has(run)) state.set(run, new Set());
  return state.get(run);
}

async function bodyText(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function answer(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "text/plain", ...headers });
  res.end(body);
}

export const routes = {
  // `?type=problem|json|text`: a 401 whose body quotes back the call's X-API-Key and Authorization.
  "/secrets/error-body": (req, res) => {
    req.resume();
    const type = new URL(req.url, "http://fixture").searchParams.get("type");
    const key = req.headers["x-api-key"];
    const said = `Key ${key} is revoked; sent ${req.headers.authorization}`;
    if (type === "text") return answer(res, 401, said);
    const problem = type === "problem";
    const body = problem
      ? {
        type: "https://example.com/probs/revoked",
        title: "Key revoked",
        status: 401,
        detail: said,
        key,
      }
      : { error: { message: said, code: "revoked" } };
    res.writeHead(401, {
      "content-type": problem ? "application/problem+json" : "application/json",
    });
    res.end(JSON.stringify(body));
  },
  "/secrets/token": async (req, res, state) => {
    const valid = validOf(req, state);
    const form = new URLSearchParams(await bodyText(req));
    const inHeader = req.headers.authorization === `Basic ${btoa(`app:${CLIENT_SECRET}`)}`;
    if (!inHeader && form.get("client_secret") !== CLIENT_SECRET) {
      return answer(res, 401, JSON.stringify({ error: "invalid_client" }));
    }
    const token = `${TOKEN}${valid.size + 1}`;
    valid.add(token);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      access_token: token,
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: REFRESH_TOKEN,
    }));
  },
  "/secrets/api": (req, res, state) => {
    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    if (!validOf(req, state).has(token)) return answer(res, 401, "token expired");
    answer(res, 200, '{"name": "ada"}', {
      "content-type": "application/json",
      "set-cookie": `sid=${SESSION}; Path=/`,
    });
  },
  "/secrets/revoke": (req, res, state) => {
    // Keeps the issued count (the next token is new) while none stays valid.
    const valid = validOf(req, state);
    const size = valid.size;
    valid.clear();
    for (let i = 0; i < size; i++) valid.add(`revoked-${i}`);
    answer(res, 200, "revoked");
  },
  "/secrets/basic": (req, res) =>
    req.headers.authorization === `Basic ${btoa(`ada:${PASSWORD}`)}`
      ? answer(res, 200, "welcome")
      : answer(res, 401, "bad credentials"),
  "/secrets/keyed": (req, res) => answer(res, req.headers["x-api-key"] === API_KEY ? 200 : 403, ""),
  "/secrets/slow": (_req, res) => {
    const timer = setTimeout(() => answer(res, 200, "late"), 2000);
    res.on("close", () => clearTimeout(timer));
  },
};
