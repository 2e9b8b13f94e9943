// The lines of Node the benchmarks run on: 22 and 24 (`FETCHLINE_NODE_LINES`
// names others, such as `24`), each `node` started as `npx -y node@<major>`
// installs it. Each line gets a folder of its own outside the repository with
// the packages its scripts import, installed by npm (the newest each line
// supports), fetchline's npm build (`npm/`, packed) among them, and a copy of
// bench's Node scripts: they import the packages by bare name.

import { nodeLines } from "../scripts/node_lines.ts";

const DEPS = "/tmp/fetchline-bench-node";
const PACKAGES = ["undici@^8", "ky@^2", "axios@^1", "got@^14"];
const decoder = new TextDecoder();

/** One line of Node, ready to run bench's Node scripts. */
export interface NodeLine {
  /** `node22`, `node24`. */
  readonly label: string;
  /** As `node --version` prints it. */
  readonly version: string;
  /** Runs `script` (a file of bench/ or bench/one_shot/) with `args`; its last line of output. */
  run(script: string, args: string[]): Promise<string>;
  /** The command that runs `script`, for timing a whole process. */
  command(script: string, args: string[]): Deno.Command;
}

async function output(command: string, args: string[]): Promise<string> {
  const result = await new Deno.Command(command, { args, stdin: "null" }).output();
  if (!result.success) {
    const reason = decoder.decode(result.stderr).trim().split("\n").slice(-3).join(" / ");
    throw new Error(`${command} ${args.join(" ")} failed: ${reason}`);
  }
  return decoder.decode(result.stdout).trim().split("\n").at(-1) ?? "";
}

/** Bench's Node scripts, by the name they are copied under. */
async function scripts(): Promise<string[]> {
  const found: string[] = [];
  for (const folder of ["bench", "bench/one_shot"]) {
    for await (const entry of Deno.readDir(folder)) {
      if (entry.name.endsWith(".mjs")) found.push(`${folder}/${entry.name}`);
    }
  }
  return found;
}

/** The lines ready to run, and a notice for each one left out. */
export async function nodeLinesReady(): Promise<{ lines: NodeLine[]; notices: string[] }> {
  await Deno.mkdir(DEPS, { recursive: true });
  const tarball = `${DEPS}/${await output("npm", ["pack", "./npm", "--pack-destination", DEPS])}`;
  const lines: NodeLine[] = [];
  const notices: string[] = [];
  for (
    const { major, command, args } of nodeLines(
      Deno.env.get("FETCHLINE_NODE_LINES") || "22,24",
      undefined,
    )
  ) {
    const dir = `${DEPS}/node${major}`;
    try {
      const node = await output(command, [...args, "-p", "process.execPath"]);
      const install = ["install", "--prefix", dir, "--no-audit", "--no-fund", "--no-package-lock"];
      console.error(`npm ${install.join(" ")} ${PACKAGES.join(" ")} <npm/ packed>`);
      await output("npm", [...install, ...PACKAGES, tarball]);
      for (const script of await scripts()) {
        await Deno.copyFile(script, `${dir}/${script.slice(script.lastIndexOf("/") + 1)}`);
      }
      const commandOf = (script: string, rest: string[]) =>
        new Deno.Command(node, { args: [`${dir}/${script}`, ...rest], stdin: "null" });
      lines.push({
        label: `node${major}`,
        version: await output(node, ["--version"]),
        command: commandOf,
        run: (script, rest) => output(node, [`${dir}/${script}`, ...rest]),
      });
    } catch (error) {
      notices.push(`Node ${major} left out: ${(error as Error).message.slice(0, 400)}`);
    }
  }
  return { lines, notices };
}
