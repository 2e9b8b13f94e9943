// Every area of the shared suite, one line per area (sorted). A runtime that
// resolves modules only from a fixed list (workerd, a page) gets them here;
// tests/shared_test.ts checks that every area file of this folder is listed.

export { default as client } from "./client.mjs";
