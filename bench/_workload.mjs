// What every request benchmark sends and expects, on Deno and Node alike
// (plain ESM, so Node runs it as it is), the six hooks of "fetchline+hooks"
// and the in-process transport of `--canned`.

/** The small JSON answer of `GET /items/1`. */
export const ITEM = Object.freeze({
  id: 1,
  name: "Ada Lovelace",
  roles: Object.freeze(["admin", "editor"]),
  active: true,
  score: 98.5,
});

/** The body each POST sends to `/echo`, which bench/server.ts echoes. */
export const ECHO_BODY = Object.freeze({
  id: 42,
  name: "Grace Hopper",
  tags: Object.freeze(["a", "b", "c"]),
  note: "a small JSON body",
});

/** The path of each workload: `get` → `GET /items/1`, `post` → `POST /echo`. */
export const PATHS = Object.freeze({ get: "/items/1", post: "/echo" });
/** The JSON content type, as a headers record. */
export const JSON_HEADERS = Object.freeze({ "content-type": "application/json" });
/** A logger that discards every line (the hooks still build them). */
export const NO_OP_LOGGER = Object.freeze({ debug() {}, info() {}, warn() {}, error() {} });

/**
 * Throws unless `body` is the parsed answer `workload` expects (the client
 * really parsed it).
 *
 * @param {"get" | "post"} workload
 * @param {unknown} body
 * @returns {void}
 */
export function checkAnswer(workload, body) {
  const id = /** @type {{ id?: unknown } | null | undefined} */ (body)?.id;
  if (id !== (workload === "get" ? ITEM.id : ECHO_BODY.id)) {
    throw new Error(`Unexpected ${workload} answer: ${JSON.stringify(body)?.slice(0, 200)}`);
  }
}

/**
 * The six hooks the Deno targets name, on `builder`, from fetchline's module
 * `lib`: `withLogging` (request, response and error hooks, to a no-op
 * logger), CorrelationIdHook, RateLimitResponseHook and an ApiKeyAuthHook.
 *
 * @template {{ withLogging: Function }} B
 * @param {any} lib
 * @param {B} builder
 * @returns {B}
 */
export function withSixHooks(lib, builder) {
  return /** @type {any} */ (builder).withLogging({ logger: NO_OP_LOGGER })
    .withRequestHook(new lib.CorrelationIdHook())
    .withResponseHook(new lib.RateLimitResponseHook())
    .withAuthHook(new lib.ApiKeyAuthHook("bench-api-key-0123456789"));
}

const ITEM_TEXT = JSON.stringify(ITEM);

/**
 * A `fetch` that answers as bench/server.ts does, in this process (for a
 * client's `withFetch`): a block then measures the library's own CPU time,
 * without the network's. A text answer carries its Content-Length, as the
 * server's do (a body of known length is read in one go; the bodies are
 * ASCII, so their length is their size).
 *
 * @param {unknown} _input
 * @param {RequestInit} [init]
 * @returns {Promise<Response>}
 */
export async function cannedFetch(_input, init) {
  const body = init?.method === "POST" ? init.body : ITEM_TEXT;
  const headers = typeof body === "string"
    ? { ...JSON_HEADERS, "content-length": String(body.length) }
    : JSON_HEADERS;
  return await Promise.resolve(new Response(body, { headers }));
}
