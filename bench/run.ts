/**
 * `deno task bench`: every benchmark in turn, each writing its own section
 * of bench/RESULTS.md: `size`, `bench:ab`, `bench:cache`, `bench:traffic`, `bench:resilience`,
 * `bench:network`, `bench:one-shot`,
 * `bench:node` and `bench:streams`. `--quick` is passed on to those that take it (all
 * but `size`): a check that everything runs.
 *
 * ```sh
 * deno task bench
 * deno task bench --quick
 * ```
 *
 * @module
 */

const TASKS = [
  "size",
  "bench:ab",
  "bench:cache",
  "bench:traffic",
  "bench:resilience",
  "bench:network",
  "bench:one-shot",
  "bench:node",
  "bench:streams",
];
const quick = Deno.args.includes("--quick");
const unknown = Deno.args.filter((arg) => arg !== "--quick");
if (unknown.length > 0) throw new TypeError(`Unknown arguments: ${unknown.join(" ")} (--quick)`);
const failed: string[] = [];
for (const task of TASKS) {
  const args = ["task", task, ...(quick && task !== "size" ? ["--quick"] : [])];
  console.error(`\n=== deno ${args.join(" ")}`);
  const { success } = await new Deno.Command(Deno.execPath(), { args }).spawn().status;
  if (!success) failed.push(task);
}
if (failed.length > 0) throw new Error(`Failed: ${failed.join(", ")}`);
