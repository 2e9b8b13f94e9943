// Every area's routes, one line per area (sorted), for the fixture process to
// merge. Paths start with the area's name, so no two files collide.

export { routes as auth } from "./auth.mjs";
export { routes as cache } from "./cache.mjs";
export { routes as client } from "./client.mjs";
export { routes as faults } from "./faults.mjs";
export { routes as har } from "./har.mjs";
export { routes as limits } from "./limits.mjs";
export { routes as middleware } from "./middleware.mjs";
export { routes as paginate } from "./paginate.mjs";
export { routes as redirects } from "./redirects.mjs";
export { routes as retries } from "./retries.mjs";
export { routes as secrets } from "./secrets.mjs";
export { routes as signing } from "./signing.mjs";
export { routes as streams } from "./streams.mjs";
export { routes as timeouts } from "./timeouts.mjs";
export { routes as traffic } from "./traffic.mjs";
