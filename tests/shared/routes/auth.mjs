// Routes for the auth area. State lives under the `run` query parameter the
// test picks: `/auth/token` is an OAuth client-credentials endpoint that
// checks the client's secret and issues tok-1, tok-2, …; `/auth/api` accepts
// only a token it issued and still holds valid (`/auth/revoke` forgets them
// all); `/auth/seen` tells what the routes saw. `/auth/echo` answers the
// request's headers, `/auth/redirect?to=` a 302 to `to`, `/auth/basic` and
// `/auth/key` check a fixed password and API key.

import { Buffer } from "node:buffer";

const CLIENT_SECRET = "cl1ent-s3cret-value";
const PASSWORD = "p4ssw0rd-value";
const API_KEY = "ap1-k3y-value";

function runOf(req, state) {
  const run = `auth:${new URL(req.url, "http://fixture").searchParams.get("run")}`;
  if (!state.has(run)) state.set(run, { fetches: 0, valid: new Set(), api: [] });
  return state.get(run);
}

function json(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

async function bodyText(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

export const routes = {
  "/auth/echo": (req, res) => json(res, 200, { path: req.url, headers: req.headers }),
  "/auth/redirect": (req, res) => {
    res.writeHead(302, { location: new URL(req.url, "http://fixture").searchParams.get("to") });
    res.end();
  },
  "/auth/basic": (req, res) => {
    const ok = req.headers.authorization === `Basic ${btoa(`ada:${PASSWORD}`)}`;
    res.writeHead(ok ? 200 : 401);
    res.end(ok ? "welcome" : "bad credentials");
  },
  "/auth/key": (req, res) => {
    res.writeHead(req.headers["x-api-key"] === API_KEY ? 204 : 403);
    res.end();
  },
  "/auth/token": async (req, res, state) => {
    const run = runOf(req, state);
    const form = new URLSearchParams(await bodyText(req));
    const inHeader = req.headers.authorization === `Basic ${btoa(`app:${CLIENT_SECRET}`)}`;
    if (!inHeader && form.get("client_secret") !== CLIENT_SECRET) {
      return json(res, 401, { error: "invalid_client" });
    }
    if (form.get("grant_type") !== "client_credentials") {
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    const token = `tok-${++run.fetches}`;
    run.valid.add(token);
    json(res, 200, { access_token: token, token_type: "Bearer", expires_in: 3600 });
  },
  "/auth/api": (req, res, state) => {
    const run = runOf(req, state);
    const authorization = req.headers.authorization ?? "";
    run.api.push(authorization);
    const token = authorization.replace(/^Bearer /, "");
    if (run.valid.has(token)) return json(res, 200, { token });
    res.writeHead(401, { "www-authenticate": "Bearer" });
    res.end("expired");
  },
  "/auth/revoke": (req, res, state) => {
    runOf(req, state).valid.clear();
    res.end();
  },
  "/auth/seen": (req, res, state) => {
    const { fetches, api } = runOf(req, state);
    json(res, 200, { fetches, api });
  },
};
