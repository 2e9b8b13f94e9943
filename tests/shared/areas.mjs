// Every area of the shared suite, one line per area (sorted). A runtime that
// resolves modules only from a fixed list (workerd, a page) gets them here;
// tests/shared_test.ts checks that every area file of this folder is listed.

export { default as auth } from "./auth.mjs";
export { default as cache } from "./cache.mjs";
export { default as client } from "./client.mjs";
export { default as faults } from "./faults.mjs";
export { default as har } from "./har.mjs";
export { default as limits } from "./limits.mjs";
export { default as middleware } from "./middleware.mjs";
export { default as paginate } from "./paginate.mjs";
export { default as redirects } from "./redirects.mjs";
export { default as retries } from "./retries.mjs";
export { default as secrets } from "./secrets.mjs";
export { default as signing } from "./signing.mjs";
export { default as streams } from "./streams.mjs";
export { default as timeouts } from "./timeouts.mjs";
export { default as traffic } from "./traffic.mjs";
