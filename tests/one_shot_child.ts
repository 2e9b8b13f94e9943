// A script that sends one request and ends (`deno run one_shot_child.ts
// <url>`), as a one-shot tool does. It counts the reads of Deno's global
// setTimeout, whose first use loads Node's timers modules (milliseconds and
// megabytes a short script pays for a timer it never needs), and prints the
// count with what the calls returned.

const own = Object.getOwnPropertyDescriptor(globalThis, "setTimeout");
let reads = 0;
if (own?.get !== undefined) {
  const get = own.get;
  Object.defineProperty(globalThis, "setTimeout", {
    ...own,
    get() {
      reads++;
      return get.call(this);
    },
  });
}
const { createClient, TimeoutException } = await import("../mod.ts");
const url = Deno.args[0] ?? "";
const status: number[] = [];
let timedOut = false;
{
  await using client = createClient(url);
  status.push((await client.get("/get")).statusCode);
  const readsAfterGet = reads;
  // A timeout of a second or more runs on the shared tick, which must still fire.
  await client.get("/delay/3000", { timeout: 1 }).catch((error) => {
    timedOut = error instanceof TimeoutException;
  });
  console.log(
    JSON.stringify({ accessor: own?.get !== undefined, readsAfterGet, status, timedOut }),
  );
}
