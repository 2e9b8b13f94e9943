/**
 * The shared behavioural suite's pieces for scripts/test_runtimes.ts: its
 * files copied next to the installed package, its fixture process (Node
 * running tests/shared/fixture_server.mjs, one for every runtime), and the
 * files workerd embeds as modules.
 *
 * @module
 */

/** Copies `from` (a folder) to `to`, with its subfolders. */
export async function copyFolder(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyFolder(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/** The running fixture: its JSON line (`{ url, otherUrl, refusedUrl }`), and how to stop it. */
export interface SharedFixture {
  readonly line: string;
  stop(): Promise<void>;
}

/** Starts `node shared/fixture_server.mjs` in `work` and reads its JSON line. */
export async function startSharedFixture(work: string): Promise<SharedFixture> {
  const child = new Deno.Command("node", {
    args: ["shared/fixture_server.mjs"],
    cwd: work,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stop = async () => {
    // The fixture exits when its stdin ends.
    await child.stdin.close().catch(() => {});
    await reader.cancel().catch(() => {});
    await child.status;
  };
  let text = "";
  try {
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`The shared fixture ended before its URLs: ${text}`);
      text += value;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { line: text.slice(0, text.indexOf("\n")), stop };
}

/** The shared suite's files workerd embeds: all but the node:http fixture, its routes and the lib by name. */
export async function sharedModules(work: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(`${work}/shared`)) {
    // Not the fixture (node:http) nor the lib by the package's name, which workerd cannot resolve.
    const own = entry.name === "fixture_server.mjs" || entry.name === "package_lib.mjs";
    if (entry.isFile && entry.name.endsWith(".mjs") && !own) {
      files.push(entry.name);
    }
  }
  return files.sort();
}
