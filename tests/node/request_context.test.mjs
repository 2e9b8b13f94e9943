// What a client binds to the context of each call of a client with an auth
// hook (the token sender its token hook sends through) stays out of every
// view of the context, on the npm build: util.inspect, JSON, keys, spread.

import assert from "node:assert/strict";
import { test } from "node:test";
import { inspect } from "node:util";
import { HttpClient, HttpClientConfigBuilder, TokenData, TokenManager } from "@fetchline/fetchline";
import { fixture } from "./server.mjs";

const FIELDS = ["request", "attempt", "maxRetries", "metadata"];

test("the token sender a client binds to a call's context is out of every view of the context", async (t) => {
  const server = await fixture(t);
  const tokenManager = new TokenManager([{
    name: "static",
    fetch: () => Promise.resolve(new TokenData({ accessToken: "t0ken-1", expiresIn: 3600 })),
  }]);
  const contexts = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withResponseHook({
      afterResponse(response, context) {
        contexts.push(context);
        return response;
      },
    })
    .withTokenAuth({ tokenManager })
    .build();
  const client = new HttpClient(config);
  t.after(() => client[Symbol.asyncDispose]());
  const response = await client.get("/api");
  assert.equal(response.json().headers.authorization, "Bearer t0ken-1");
  const context = contexts.at(-1);
  assert.deepEqual(Reflect.ownKeys(context), FIELDS);
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(context))), FIELDS);
  assert.deepEqual(Object.keys({ ...context }), FIELDS);
  assert.doesNotMatch(inspect(context, { showHidden: true }), /sender|token/i);
});
