// Routes of the cache area. `/cache/resource?run=` answers what its query
// says, and records each call under `run` (`/cache/calls?run=` lists them:
// URL, method, If-None-Match, Authorization):
// - `cc`, `etag`, `vary`, `age`: those headers; `expires-in` and
//   `modified-ago` (seconds): Date now, and Expires or Last-Modified that
//   much after or before it; `cookie=1`: a Set-Cookie;
// - a GET whose If-None-Match is the ETag: a 304 with Cache-Control (that
//   of `cc304` when given), ETag, Vary, X-Version and Age: 0 (the stored Age
//   is replaced: fresh again);
// - `fail-after=n&code=502`: calls of this URL after its first n answer
//   that status;
// - `size=n`: a body of n bytes (byte i is i % 251) in pieces of 16 KiB;
// - a POST or DELETE: 201 with no caching header, and the `location` and
//   `content-location` of its query as those headers.
// Otherwise the body is JSON: the call's number, the method and the
// Authorization and Accept it was sent with; X-Version is the number.

import { Buffer } from "node:buffer";
import { json, query } from "./http.mjs";

/** Records this call under the request's run; the calls so far. */
function record(req, state) {
  const name = `cache:${query(req, "run")}`;
  const calls = state.get(name) ?? [];
  calls.push({
    url: req.url,
    method: req.method,
    ifNoneMatch: req.headers["if-none-match"] ?? null,
    authorization: req.headers.authorization ?? null,
  });
  state.set(name, calls);
  return calls;
}

/** The caching headers the query asks for. */
function cachingHeaders(params) {
  const headers = {};
  const copy = { cc: "cache-control", etag: "etag", vary: "vary" };
  for (const [param, name] of Object.entries(copy)) {
    if (params.has(param)) headers[name] = params.get(param);
  }
  return headers;
}

/** Writes `size` bytes (byte i is i % 251) in pieces of 16 KiB, then ends. */
function writeBytes(res, size) {
  let sent = 0;
  const more = () => {
    while (sent < size) {
      const length = Math.min(16_384, size - sent);
      const chunk = Buffer.from(Uint8Array.from({ length }, (_, i) => (sent + i) % 251));
      sent += length;
      if (!res.write(chunk)) return void res.once("drain", more);
    }
    res.end();
  };
  more();
}

export const routes = {
  "/cache/resource": (req, res, state) => {
    const calls = record(req, state);
    req.resume();
    const params = new URL(req.url, "http://127.0.0.1").searchParams;
    const n = calls.length;
    const version = { "x-version": `${n}` };
    if (req.method === "POST" || req.method === "DELETE") {
      const moved = {};
      for (const name of ["location", "content-location"]) {
        if (params.has(name)) moved[name] = params.get(name);
      }
      return json(res, 201, { call: n, method: req.method }, moved);
    }
    const failAfter = params.get("fail-after");
    const ofUrl = calls.filter((call) => call.url === req.url).length;
    if (failAfter !== null && ofUrl > Number(failAfter)) {
      return json(res, Number(params.get("code") ?? "502"), { call: n, failed: true });
    }
    const headers = { ...cachingHeaders(params), ...version };
    const tag = params.get("etag");
    if (tag !== null && req.headers["if-none-match"] === tag) {
      const cc304 = params.get("cc304");
      res.writeHead(304, {
        ...headers,
        ...(cc304 === null ? {} : { "cache-control": cc304 }),
        age: "0",
      });
      return res.end();
    }
    if (params.has("age")) headers.age = params.get("age");
    // Date is now; Expires and Last-Modified are that many seconds after or before it.
    const now = Date.now();
    const at = (seconds) => new Date(now + seconds * 1000).toUTCString();
    if (params.has("expires-in")) {
      Object.assign(headers, { date: at(0), expires: at(Number(params.get("expires-in"))) });
    }
    if (params.has("modified-ago")) {
      const modified = at(-Number(params.get("modified-ago")));
      Object.assign(headers, { date: at(0), "last-modified": modified });
    }
    if (params.get("cookie") === "1") headers["set-cookie"] = "session=s3cr3t-cookie; Path=/";
    const size = params.get("size");
    if (size !== null) {
      res.writeHead(200, { "content-type": "application/octet-stream", ...headers });
      return writeBytes(res, Number(size));
    }
    json(res, 200, {
      call: n,
      method: req.method,
      authorization: req.headers.authorization ?? null,
      accept: req.headers.accept ?? null,
    }, headers);
  },
  "/cache/calls": (req, res, state) => {
    json(res, 200, { calls: state.get(`cache:${query(req, "run")}`) ?? [] }, {
      "cache-control": "no-store",
    });
  },
};
