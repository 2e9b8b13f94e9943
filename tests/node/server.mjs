// The Node suite's fixture: a node:http server on 127.0.0.1, port 0, that
// records every request and answers as the path asks. Routes a test
// registers win over the default JSON echo.

import { createServer } from "node:http";

/**
 * Starts the server.
 *
 * @returns {Promise<{ url: string, requests: object[], route(path: string, handler: Function): void, close(): Promise<void> }>}
 */
export async function startServer() {
  const requests = [];
  const routes = new Map();
  const server = createServer(async (req, res) => {
    const chunks = [];
    try {
      for await (const chunk of req) chunks.push(chunk);
    } catch {
      // The client gave up during the body (its own source failed): nothing to answer.
      return;
    }
    const url = new URL(req.url, "http://127.0.0.1");
    const recorded = {
      method: req.method,
      path: url.pathname,
      query: url.search.slice(1),
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    requests.push(recorded);
    const handler = routes.get(url.pathname);
    if (handler !== undefined) return handler(req, res, recorded);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...recorded, body: recorded.body.toString("utf8") }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    route: (path, handler) => routes.set(path, handler),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers with `status` and a JSON body. */
/** Starts a server for the test `t`, closed when the test ends. */
export async function fixture(t) {
  const server = await startServer();
  t.after(() => server.close());
  return server;
}

export function json(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
