// The "Size" section of bench/RESULTS.md: written by `deno task size`
// (bench/size.ts) between two markers, and kept as it is when `deno task
// bench` (bench/run.ts) rewrites the rest of the file.

/** Bytes of code, minified and minified then gzipped. */
export interface Bytes {
  readonly min: number;
  readonly gzip: number;
}

/** One bundle: what loads with the entry, and what a dynamic `import()` loads later. */
export interface Bundle {
  readonly name: string;
  readonly description: string;
  readonly initial: Bytes;
  readonly lazy: Bytes;
}

/** What the section says besides the bundles. */
export interface SizeRun {
  readonly date: Date;
  readonly command: string;
  readonly esbuild: string;
  readonly flags: string;
  readonly versions: string;
  readonly bundles: readonly Bundle[];
  /** The package's modules the basic bundle keeps, bytes by folder. */
  readonly basicKeeps: readonly { folder: string; bytes: number }[];
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function cell({ min, gzip }: Bytes): string {
  return `${kb(min)} / ${kb(gzip)} (${min.toLocaleString("en-US")} / ${
    gzip.toLocaleString("en-US")
  } B)`;
}

/** The section, markers included. */
export function sizeMarkdown(run: SizeRun): string {
  const rows = run.bundles.map((bundle) => {
    const lazy = bundle.lazy.min === 0 ? "—" : cell(bundle.lazy);
    return `| ${bundle.name} | ${bundle.description} | ${cell(bundle.initial)} | ${lazy} |`;
  });
  const keeps = run.basicKeeps.map(({ folder, bytes }) => `${folder} ${kb(bytes)}`).join(", ");
  return `<!-- size:start -->

## Size

Written by \`deno task size\` (bench/size.ts); \`deno task bench\` keeps this section as it is.

- Date: ${run.date.toISOString()}
- Command: \`${run.command}\`
- Bundler: esbuild ${run.esbuild}, \`${run.flags}\`, one bundle per entry, from the packed npm
  package as a user installs it (its Web build, picked by the \`browser\` condition)
- Packages: ${run.versions}

Each entry file calls what its row names; "loaded first" is the entry's chunk and the chunks it
imports statically, "loaded on demand" the chunks of a dynamic \`import()\` (tough-cookie and its
public suffix list, loaded by the default cookie jar on the first cookie a client receives),
which a bundler splits off as esbuild does with \`--splitting\`. KB are 1,024 bytes; gzip is the
platform's \`CompressionStream\`.

| bundle | entry | loaded first: min / min+gzip | loaded on demand: min / min+gzip |
| ------ | ----- | ---------------------------- | -------------------------------- |
${rows.join("\n")}

What the \`createClient\` + \`get\` bundle keeps of the package, minified, by folder: ${keeps}.
<!-- size:end -->`;
}
