// Routes of the har area. `/har/session?key=` answers JSON naming the call
// (its method, path and body length: never a secret it was sent) with a Set-Cookie; `?bytes=1` answers
// 256 bytes (byte i is i) as application/octet-stream; `?cache=1` adds
// Cache-Control: max-age=60. Every call is counted under `key`
// (`/har/calls?key=` gives the count), so a replay can show it reached no
// server.

import { Buffer } from "node:buffer";
import { count, json, query, readBody } from "./http.mjs";

export const routes = {
  "/har/session": async (req, res, state) => {
    count(state, `har:${query(req, "key")}`);
    const body = await readBody(req);
    const url = new URL(req.url, "http://127.0.0.1");
    if (query(req, "bytes") === "1") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return res.end(Buffer.from(Uint8Array.from({ length: 256 }, (_, i) => i)));
    }
    const headers = { "set-cookie": "sid=set-SECRET-7; Path=/; HttpOnly" };
    if (query(req, "cache") === "1") headers["cache-control"] = "max-age=60";
    json(res, 200, { method: req.method, path: url.pathname, bodyBytes: body.length }, headers);
  },
  "/har/calls": (req, res, state) => {
    json(res, 200, { count: state.get(`har:${query(req, "key")}`) ?? 0 });
  },
};
