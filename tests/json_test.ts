import assert from "node:assert/strict";
import fc from "fast-check";
import vm from "node:vm";
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

/** The format written the plain way: JSON.stringify for every key and scalar. */
function pythonStyle(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonStyle).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const members = Object.entries(value).map(([key, member]) =>
      `${JSON.stringify(key)}: ${pythonStyle(member)}`
    );
    return `{${members.join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** Characters a faster writer could get wrong: the format's own, escapes, any UTF-16 unit. */
const trickyChar = fc.oneof(
  fc.constantFrom('"', "\\", ",", ":", ", ", ": ", "{", "}", "[", "]", " ", "\n", "\t"),
  fc.constantFrom("\u0000", "\u001f", "\u007f", "\u0080", "\u2028", "ü", "😀", "\ud800", "\udfff"),
  fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
  fc.constantFrom("a", "b", "1"),
);

Deno.test("serializeJson() writes what the plain way writes, for any JSON value", () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.jsonValue({ stringUnit: trickyChar }), fc.jsonValue()),
      (value) => assert.equal(serializeJson(value), pythonStyle(value)),
    ),
    { numRuns: 3000 },
  );
});

Deno.test("serializeJson() writes what the plain way writes with long strings anywhere in the body", () => {
  // Strings from 128 units on join the output as texts of their own: a body
  // may be one run of bytes, start or end with such a text, or mix both.
  const text = fc.oneof(
    fc.string({ unit: trickyChar, maxLength: 8 }),
    fc.string({ unit: trickyChar, minLength: 120, maxLength: 300 }),
  );
  const value = fc.oneof(
    text,
    fc.array(text, { maxLength: 4 }),
    fc.dictionary(text, fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 3 })), {
      maxKeys: 4,
    }),
  );
  fc.assert(
    fc.property(value, (v) => assert.equal(serializeJson(v), pythonStyle(v))),
    { numRuns: 1000 },
  );
});

Deno.test("serializeJson() escapes every UTF-16 unit as JSON.stringify does", () => {
  const units = Array.from({ length: 0x10000 }, (_, unit) => String.fromCharCode(unit));
  for (const unit of units) assert.equal(serializeJson(unit), JSON.stringify(unit));
  const all = units.join("");
  assert.equal(serializeJson(all), JSON.stringify(all));
  for (const text of ["\ud83d\ude00", "\ude00\ud83d", "a\ud800", "\ud800\ud800\udc00", "x😀y"]) {
    assert.equal(
      serializeJson([text, text.repeat(100)]),
      `[${JSON.stringify(text)}, ${JSON.stringify(text.repeat(100))}]`,
    );
  }
});

Deno.test("serializeJson() writes long strings and large bodies whole", () => {
  const long = 'a "quoted", ünïcode: 😀\n'.repeat(50_000);
  const body = {
    long,
    items: Array.from(
      { length: 40_000 },
      (_, i) => ({ id: i, text: `${i}: ${"x".repeat(i % 300)}` }),
    ),
    after: [127, 128, 129, 255, 256, 257].map((length) => long.slice(0, length)),
  };
  assert.equal(serializeJson(body), pythonStyle(body));
  assert.equal(serializeJson({ small: 1 }), '{"small": 1}');
});

/** The double next to `value` (not 0), away from zero (1) or towards it (-1). */
function adjacent(value: number, direction: 1 | -1): number {
  const bits = new BigInt64Array(new Float64Array([value]).buffer);
  bits[0]! += BigInt(direction);
  return new Float64Array(bits.buffer)[0]!;
}

Deno.test("serializeJson() writes every number as JSON.stringify does", () => {
  const numbers = [0, -0, 1, -1, 9, 10, 99, 100, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1];
  for (let n = -20_000; n <= 20_000; n++) {
    const thousandths = n / 1000;
    // The doubles next to it, such as 0.043000000000000003, are not it, though
    // 1000 times them may round to the same integer.
    numbers.push(thousandths, adjacent(thousandths, 1));
    if (n !== 0) numbers.push(adjacent(thousandths, -1));
    numbers.push(n / 100, n / 10, thousandths + 1e6);
  }
  // Decimals at the edges of the int32 range of thousandths, and past them.
  for (const edge of [2 ** 31 - 2, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1]) {
    numbers.push(edge / 1000, -edge / 1000, (edge + 0.5) / 1000);
  }
  numbers.push(0.1 + 0.2, 1.005, 1e-7, 123456.7891, 1e21, 5e-324, Number.MAX_VALUE);
  numbers.push(...fc.sample(fc.double({ noNaN: true, noDefaultInfinity: true }), 20_000));
  numbers.push(
    ...fc.sample(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map((n) => n / 1000), 20_000),
  );
  assert.equal(serializeJson(numbers), `[${numbers.map((n) => JSON.stringify(n)).join(", ")}]`);
});

Deno.test("serializeJson() leaves out undefined members wherever they are", () => {
  const gone = { toJSON: () => undefined };
  assert.equal(
    serializeJson({ a: undefined, b: 1, c: gone, d: 2, e: undefined }),
    '{"b": 1, "d": 2}',
  );
  assert.equal(serializeJson({ a: undefined, ["x".repeat(300)]: gone }), "{}");
  assert.equal(serializeJson([undefined, gone, 1]), "[null, null, 1]");
});

Deno.test("serializeJson() writes own enumerable string keys only, in JSON.stringify's order", () => {
  const inherited = Object.assign(Object.create({ inherited: 1 }), { b: 1, 2: "two", a: [1] });
  Object.defineProperty(inherited, "hidden", { value: 1, enumerable: false });
  inherited[Symbol("s")] = 1;
  class Point {
    constructor(readonly x: number, readonly y: number) {}
  }
  (Point.prototype as unknown as Record<string, unknown>).enumerable = "on the prototype";
  const deleting = () => {
    const object: Record<string, unknown> = { b: 2, c: 3 };
    Object.defineProperty(object, "a", {
      enumerable: true,
      get: () => (delete object.b, 1),
    });
    return object;
  };
  for (const make of [() => inherited, () => new Point(1, 2), deleting]) {
    assert.equal(serializeJson(make()), pythonStyle(JSON.parse(JSON.stringify(make()))));
  }
  const polluted = Object.prototype as Record<string, unknown>;
  polluted.polluted = "inherited by every object";
  try {
    assert.equal(serializeJson({ a: { b: 1 } }), '{"a": {"b": 1}}');
  } finally {
    delete polluted.polluted;
  }
});

Deno.test("serializeJson() calls toJSON once, with the key, as JSON.stringify does", () => {
  const keys: string[] = [];
  const spy = { toJSON: (key: string) => (keys.push(key), key) };
  assert.equal(serializeJson({ a: spy, list: [spy] }), '{"a": "a", "list": ["0"]}');
  assert.deepEqual(keys, ["a", "0"]);
  assert.equal(serializeJson(spy), '""');
});

Deno.test("serializeJson() may be called from a toJSON() during another call", () => {
  const inner = { toJSON: () => serializeJson({ nested: [1, "two"] }) };
  assert.equal(
    serializeJson({ inner, after: "x" }),
    '{"inner": "{\\"nested\\": [1, \\"two\\"]}", "after": "x"}',
  );
});

Deno.test("serializeJson() throws as JSON.stringify does for a boxed BigInt, after its own checks", () => {
  assert.throws(() => serializeJson({ a: Object(1n) }), (error: unknown) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /BigInt/);
    return true;
  });
  assert.throws(() => serializeJson([Object(1n), NaN]), /^TypeError: Invalid jsonData\[1\]: NaN/);
});

Deno.test("serializeJson() writes the next body whole after one it refused", () => {
  assert.throws(
    () => serializeJson({ text: "x".repeat(100), list: [1, 2, NaN] }),
    /list\[2\]: NaN/,
  );
  assert.equal(serializeJson({ c: [1] }), '{"c": [1]}');
});

Deno.test("serializeJson() writes boxed values from another realm as JSON.stringify does", () => {
  const foreign = vm.runInNewContext(
    "({ n: new Number(5), s: new String('ü'), b: new Boolean(false), d: new Date(0), l: [1] })",
  );
  assert.equal(serializeJson(foreign), pythonStyle(JSON.parse(JSON.stringify(foreign))));
  const lying = Object.assign(Object.create(null), { [Symbol.toStringTag]: "Number", a: 1 });
  assert.equal(serializeJson(lying), '{"a": 1}');
});
