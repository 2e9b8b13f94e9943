import assert from "node:assert/strict";
import * as v from "valibot";
import { z } from "zod";
import {
  HttpRequest,
  HttpResponse,
  ResponseParseException,
  type StandardSchemaV1,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { singleAttemptClient, throwsAtOnce } from "./helpers.ts";

function responseOf(body: string, url = "http://127.0.0.1/users/1?token=t0ken"): HttpResponse {
  const request = new HttpRequest("GET", url);
  const content = new TextEncoder().encode(body);
  return new HttpResponse({ statusCode: 200, headers: {}, content, elapsedMs: 1, url, request });
}

const ZodUser = z.object({
  id: z.number(),
  name: z.string(),
  joined: z.string().transform((text) => new Date(text)),
});

const ValibotUser = v.object({
  id: v.number(),
  name: v.string(),
  joined: v.pipe(v.string(), v.transform((text) => new Date(text))),
});

const ADA = '{"id": 1, "name": "Ada", "joined": "2026-01-02T00:00:00Z"}';

Deno.test("json(schema) returns a zod schema's output, typed from the schema", () => {
  const user = responseOf(ADA).json(ZodUser);
  const typed: { id: number; name: string; joined: Date } = user;
  assert.equal(typed.name, "Ada");
  assert.ok(user.joined instanceof Date, "the output type, transforms applied");
  // @ts-expect-error: the schema has no such field.
  void user.email;
});

Deno.test("json(schema) returns a valibot schema's output, typed from the schema", () => {
  const user = responseOf(ADA).json(ValibotUser);
  const typed: { id: number; name: string; joined: Date } = user;
  assert.equal(typed.id, 1);
  assert.equal(user.joined.toISOString(), "2026-01-02T00:00:00.000Z");
});

Deno.test("json(schema) accepts a hand-written Standard Schema validator", () => {
  const calls: unknown[] = [];
  const even: StandardSchemaV1<unknown, number> = {
    "~standard": {
      version: 1,
      vendor: "hand",
      validate: (value) => {
        calls.push(value);
        return typeof value === "number" && value % 2 === 0
          ? { value: value / 2 }
          : { issues: [{ message: "Expected an even number" }] };
      },
    },
  };
  const half: number = responseOf("42").json(even);
  assert.equal(half, 21);
  assert.deepEqual(calls, [42]);
  const error = throwsAtOnce(
    () => responseOf("3").json(even),
    ResponseParseException,
    "Response body does not match the schema (1 issue: (root)): GET http://127.0.0.1/users/1?token=*** (status 200)",
  ) as ResponseParseException;
  assert.deepEqual(error.issues, [{ message: "Expected an even number" }]);
});

for (
  const [vendor, schema] of [["zod", ZodUser], ["valibot", ValibotUser]] as const
) {
  Deno.test(`json(schema) throws ResponseParseException with ${vendor}'s issues and the response`, () => {
    const body = '{"id": "s3cret-id", "name": 7, "joined": "2026-01-02"}';
    const response = responseOf(body);
    const error = throwsAtOnce(
      () => response.json(schema),
      ResponseParseException,
      "Response body does not match the schema (2 issues: id, name): GET http://127.0.0.1/users/1?token=*** (status 200)",
    ) as ResponseParseException;
    assert.equal(error.response, response);
    assert.equal(error.request, response.request);
    assert.equal(error.cause, undefined);
    assert.deepEqual(
      error.issues?.map((issue) =>
        issue.path?.map((key) => typeof key === "object" ? key.key : key)
      ),
      [["id"], ["name"]],
    );
    assert.ok(error.issues?.every((issue) => issue.message.length > 0));
    // An issue's message may quote the body, which views never show.
    for (
      const shown of [JSON.stringify(error), Deno.inspect(error, { depth: 10 }), String(error)]
    ) {
      assert.ok(!shown.includes("s3cret"), shown);
      assert.ok(!shown.includes("t0ken"), shown);
    }
    assert.ok(!("issues" in JSON.parse(JSON.stringify(error))));
  });
}

Deno.test("json(schema) names nested and odd issue paths, and counts those past the third", () => {
  const Items = z.object({
    items: z.array(z.object({ id: z.number() })),
    "odd key": z.string(),
    a: z.string(),
    b: z.string(),
  });
  throwsAtOnce(
    () => responseOf('{"items": [{"id": 1}, {"id": "x"}], "odd key": 1}').json(Items),
    ResponseParseException,
    /^Response body does not match the schema \(4 issues: items\[1\]\.id, \["odd key"\], a, 1 more\): GET /,
  );
});

Deno.test("json(schema) throws ResponseParseException with the parser's cause for a body that is not JSON", () => {
  const error = throwsAtOnce(
    () => responseOf("not json").json(ZodUser),
    ResponseParseException,
    "Response body is not valid JSON: GET http://127.0.0.1/users/1?token=*** (status 200)",
  ) as ResponseParseException;
  assert.ok(error.cause instanceof SyntaxError);
  assert.equal(error.issues, undefined);
});

Deno.test("json() of a body that is not JSON: no view of the exception quotes the body, which the parser's message does", () => {
  const secret = "s3cr3tT0k3n";
  for (const parse of [(r: HttpResponse) => r.json(), (r: HttpResponse) => r.json(ZodUser)]) {
    const error = throwsAtOnce(
      () => parse(responseOf(`token=${secret}`)),
      ResponseParseException,
      /^Response body is not valid JSON: /,
    ) as ResponseParseException;
    assert.ok(error.cause instanceof SyntaxError, "the parser's error stays the cause");
    assert.ok(error.cause.message.includes(secret), "this runtime's parser quotes the body");
    for (const shown of [String(error), JSON.stringify(error), Deno.inspect(error)]) {
      assert.ok(!shown.includes(secret), shown);
    }
    assert.match(JSON.stringify(error), /"cause":\{"name":"SyntaxError","message":"\*\*\*"\}/);
  }
});

Deno.test("json(schema) refuses an async validator with a TypeError naming it, never an unawaited promise", async () => {
  // zod runs an async refinement once more on its own: one that rejects would
  // leave zod's promise unhandled, so this one resolves false.
  const Slow = z.object({ id: z.number() }).refine(async () => {
    await Promise.resolve();
    return false;
  });
  throwsAtOnce(
    () => responseOf('{"id": 1}').json(Slow),
    TypeError,
    "Invalid schema: the zod validator is asynchronous, and json(schema) validates synchronously; validate response.json() with the validator's own async call instead",
  );
  const SlowValibot = v.objectAsync({
    id: v.pipeAsync(v.number(), v.checkAsync(() => Promise.reject(new Error("nope")))),
  });
  throwsAtOnce(() => responseOf('{"id": 1}').json(SlowValibot), TypeError, /the valibot validator/);
  let calls = 0;
  const rejecting: StandardSchemaV1 = {
    "~standard": {
      version: 1,
      vendor: "hand",
      validate: () => (calls++, Promise.reject(new Error("validator failed"))),
    },
  };
  throwsAtOnce(() => responseOf("1").json(rejecting), TypeError, /the hand validator/);
  // The refused promises settle with no unhandled rejection (the test would fail on one).
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(calls, 1);
});

Deno.test("json(schema) refuses what is not a Standard Schema validator with a TypeError", () => {
  const response = responseOf(ADA);
  const bad: unknown[] = [undefined, null, {}, { "~standard": { version: 2, validate() {} } }, 7];
  for (const schema of bad) {
    throwsAtOnce(
      () => response.json(schema as StandardSchemaV1),
      TypeError,
      /^Invalid schema: expected a Standard Schema validator \(version 1 under "~standard"\), got /,
    );
  }
  assert.deepEqual(response.json(), JSON.parse(ADA), "json() with no argument still parses");
});

Deno.test("HttpClient.get() then json(schema) validates a body from a server", async () => {
  await using server = startFixtureServer();
  server.route(
    "/users/1",
    () => new Response(ADA, { headers: { "content-type": "application/json" } }),
  );
  await using client = singleAttemptClient(server.url);
  const user = (await client.get("/users/1")).raiseForStatus().json(ZodUser);
  assert.equal(user.name, "Ada");
  const response = await client.get("/status/200");
  assert.throws(() => response.json(ValibotUser), ResponseParseException);
});
