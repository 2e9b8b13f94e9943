// Every area's routes, one line per area (sorted), for the fixture process to
// merge. Paths start with the area's name, so no two files collide.

export { routes as client } from "./client.mjs";
