// The shared suite's `lib` by the package's own name: every public entry
// point a test may use, for the runners that load the npm package by name
// (Node, Bun and Deno through npm, the browsers through an import map).
// Deno's runner (tests/shared_test.ts, the sources) and workerd's (the Web
// build's files by path) assemble theirs from the same entry points.

import * as mod from "@fetchline/fetchline";
import * as cache from "@fetchline/fetchline/cache";
import * as traffic from "@fetchline/fetchline/traffic";
import * as har from "@fetchline/fetchline/har";
import * as testing from "@fetchline/fetchline/testing";
import * as sse from "@fetchline/fetchline/sse";
import * as pagination from "@fetchline/fetchline/paginate";
import * as signing from "@fetchline/fetchline/signing";
import { toCurl } from "@fetchline/fetchline/utils";

/** The package's public API in one object. */
export const lib = {
  ...mod,
  ...cache,
  ...traffic,
  ...har,
  ...testing,
  ...sse,
  ...pagination,
  ...signing,
  toCurl,
};
