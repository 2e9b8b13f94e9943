/**
 * Pagination: {@linkcode paginate} walks the pages of a listing, each one
 * call of a client, the next one found in the `Link` header's
 * `rel="next"` or by the caller's `next()`; {@linkcode paginateItems}
 * yields the items of those pages. `mod.ts` never loads this module: a
 * client that reads no listing never loads its code.
 *
 * For: every item of a listing, page after page. Guide:
 * [docs/requests.md](./docs/requests.md), "Pagination".
 *
 * @example Every item of a listing, page after page
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import { paginateItems } from "@fetchline/fetchline/paginate";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
 *   const page = Number(new URL(request.url).searchParams.get("page") ?? 1);
 *   const link = page < 2 ? `</items?page=${page + 1}>; rel="next"` : "";
 *   return Response.json([`${page}a`, `${page}b`], { headers: { link } });
 * });
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * const items = paginateItems(client, "/items", { items: (page) => page.json<string[]>() });
 * assert.deepEqual(await Array.fromAsync(items), ["1a", "1b", "2a", "2b"]);
 * ```
 *
 * @module
 */

export { paginate, paginateItems } from "./src/paginate/paginate.ts";
export type {
  NextPage,
  NextPageOptions,
  PaginateItemsOptions,
  PaginateOptions,
} from "./src/paginate/paginate.ts";
