import assert from "node:assert/strict";
import fc from "fast-check";
import { serializeJson } from "../utils.ts";

Deno.test("serializeJson() writes Python's default style", () => {
  assert.equal(
    serializeJson({ name: "Ada", tags: ["a", "b"], nested: { n: 1.5, ok: true, none: null } }),
    '{"name": "Ada", "tags": ["a", "b"], "nested": {"n": 1.5, "ok": true, "none": null}}',
  );
  assert.equal(serializeJson([]), "[]");
  assert.equal(serializeJson({}), "{}");
  assert.equal(serializeJson("a, b: c"), '"a, b: c"');
});

Deno.test("serializeJson() keeps non-ASCII text as it is", () => {
  assert.equal(serializeJson({ city: "Zürich", emoji: "😀" }), '{"city": "Zürich", "emoji": "😀"}');
});

Deno.test("serializeJson() follows JSON.stringify for toJSON, boxed values and undefined", () => {
  const date = new Date(Date.UTC(2026, 0, 2));
  assert.equal(serializeJson({ date }), '{"date": "2026-01-02T00:00:00.000Z"}');
  assert.equal(serializeJson({ a: undefined, b: [undefined] }), '{"b": [null]}');
  assert.equal(serializeJson(Object(1)), "1");
  assert.equal(serializeJson({ n: -0, big: 1e21 }), '{"n": 0, "big": 1e+21}');
  const shared = { x: 1 };
  assert.equal(serializeJson([shared, shared]), '[{"x": 1}, {"x": 1}]');
});

Deno.test("serializeJson() refuses what JSON cannot say, naming the path", () => {
  const cases: [unknown, RegExp][] = [
    [{ a: { b: [0, 1n] } }, /^Invalid jsonData\.a\.b\[1\]: BigInt/],
    [{ "odd key": Infinity }, /^Invalid jsonData\["odd key"\]: Infinity/],
    [{ f: () => 1 }, /jsonData\.f: a function/],
    [{ m: new Map() }, /jsonData\.m: a Map/],
    [{ s: new Set() }, /jsonData\.s: a Set/],
    [Symbol("x"), /^Invalid jsonData: a symbol/],
    [undefined, /^Invalid jsonData: undefined/],
  ];
  for (const [value, message] of cases) {
    assert.throws(() => serializeJson(value), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, message);
      return true;
    });
  }
  const list: unknown[] = [];
  list.push({ back: list });
  assert.throws(() => serializeJson(list), /jsonData\[0\]\.back: circular reference/);
});

Deno.test("serializeJson() parses back to what JSON.stringify gives, for any JSON value", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      assert.deepEqual(JSON.parse(serializeJson(value)), JSON.parse(JSON.stringify(value)));
    }),
    { numRuns: 2000 },
  );
});
