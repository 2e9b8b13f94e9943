// The HAR 1.2 JSON schema (npm's har-schema, the schema har-validator checks
// with) compiled by Ajv: `harErrors(har)` lists what a recording gets wrong.
// Shared by the Deno suite (tests/har_test.ts) and the Node suite.

import Ajv from "ajv";
import schemas from "har-schema";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const draft06 = require("ajv/dist/refs/json-schema-draft-06.json");

// har-schema is draft-06, with its own `min` and `optional` keywords (not
// JSON Schema's): strict mode off. The formats it names, as plain patterns
// (its date-time has its own pattern too).
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addMetaSchema(draft06);
ajv.addFormat("date-time", /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/);
ajv.addFormat("ipv4", /^(\d{1,3}\.){3}\d{1,3}$/);
ajv.addFormat("ipv6", /^[0-9a-f:.]*:[0-9a-f:.]*$/i);
for (const [name, schema] of Object.entries(schemas)) {
  if (name !== "har") ajv.addSchema(schema);
}
const validate = ajv.compile(schemas.har);

/** What `har` gets wrong against the HAR 1.2 schema (empty when it validates). */
export function harErrors(har) {
  return validate(har) ? [] : validate.errors.map((e) => `${e.instancePath} ${e.message}`);
}
