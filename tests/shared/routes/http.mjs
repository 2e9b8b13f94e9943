// Small helpers for the routes of the shared suite's fixture (node:http).

import { Buffer } from "node:buffer";

/** The request's body, read to its end, as a Buffer. */
export async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Answers with `status`, a JSON body and `headers`. */
export function json(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** The request as JSON: method, path, query, lower-case headers and the body as text. */
export async function echo(req, res, headers = {}) {
  const body = (await readBody(req)).toString("utf8");
  const url = new URL(req.url, "http://127.0.0.1");
  const sent = {
    method: req.method,
    path: url.pathname,
    query: url.search.slice(1),
    headers: req.headers,
    body,
  };
  json(res, 200, sent, headers);
}

/** The query parameter `name` of the request (such as the `key` a test picks for its state). */
export function query(req, name) {
  return new URL(req.url, "http://127.0.0.1").searchParams.get(name);
}

/** Adds one to the counter `name` in `state` and returns the new count. */
export function count(state, name) {
  const next = (state.get(name) ?? 0) + 1;
  state.set(name, next);
  return next;
}
