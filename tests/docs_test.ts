// The README and the guides in docs/: every relative link reaches a file and a heading that exist,
// and the README stays a five-minute read with its quick start in the first screen.
import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);
const guides = [...Deno.readDirSync(new URL("docs/", root))]
  .filter((entry) => entry.isFile && entry.name.endsWith(".md"))
  .map((entry) => `docs/${entry.name}`).sort();

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

function anchors(markdown: string): Set<string> {
  const outside = markdown.replace(/^```[\s\S]*?^```$/gm, "");
  return new Set(outside.match(/^#{1,6} .+$/gm)?.map((line) => slug(line.replace(/^#+ /, ""))));
}

Deno.test("Every relative link of README.md and the guides reaches a file and a heading that exist", async () => {
  assert.ok(guides.length >= 12, `docs/ holds ${guides.length} guides`);
  for (const file of ["README.md", ...guides]) {
    const text = await Deno.readTextFile(new URL(file, root));
    const outside = text.replace(/^```[\s\S]*?^```$/gm, "");
    for (const [, target] of outside.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue; // https:, mailto:
      const [path, anchor] = target!.split("#");
      const url = path ? new URL(path, new URL(file, root)) : new URL(file, root);
      const stat = await Deno.stat(url).catch(() => undefined);
      assert.ok(stat, `${file}: the link ${target} names no file`);
      if (anchor && url.pathname.endsWith(".md")) {
        const headings = anchors(await Deno.readTextFile(url));
        assert.ok(headings.has(anchor), `${file}: the link ${target} names no heading`);
      }
    }
  }
});

Deno.test("README.md is at most 400 lines, its quick start within the first 60", async () => {
  const lines = (await Deno.readTextFile(new URL("README.md", root))).split("\n");
  assert.ok(lines.length <= 400, `README.md has ${lines.length} lines`);
  const start = lines.indexOf("## Quick start");
  assert.ok(start >= 0 && start < 60, `the quick start starts at line ${start + 1}`);
  const end = lines.indexOf("```", lines.indexOf("```ts", start));
  assert.ok(end < 60, `the quick start's example ends at line ${end + 1}`);
  const example = lines.slice(start, end).join("\n");
  for (
    const step of ["api.get(", "api.stream(", ".events(", "raiseForStatus()", "catch (error)"]
  ) {
    assert.ok(example.includes(step), `the quick start shows ${step}`);
  }
});

Deno.test("Every guide opens with an example that starts a local server", async () => {
  for (const file of guides) {
    const text = await Deno.readTextFile(new URL(file, root));
    const first = text.match(/^```ts\n([\s\S]*?)^```$/m)?.[1];
    assert.ok(first, `${file} has a TypeScript example`);
    // testing.md's first example needs no server: MockTransport is the point.
    assert.ok(
      /Deno\.serve|createServer|MockTransport/.test(first),
      `${file}'s first example runs against a local server`,
    );
  }
});
