// The "Streams" section of bench/RESULTS.md: written by `deno task
// bench:streams` (bench/streams.ts) between two markers, and kept as it is
// when `deno task bench` (bench/run.ts) rewrites the rest of the file.

import { median } from "./_loop.mjs";

/** One line a measurement process printed. */
export interface Measured {
  readonly runtime: string;
  readonly node?: string;
  readonly case: string;
  readonly client: string;
  readonly variant?: string;
  readonly bytes?: number;
  readonly seconds: number;
  readonly cpuSeconds?: number;
  readonly rssGrowthMiB?: number;
  readonly rssBeforeMiB?: number;
  readonly rssPeakMiB?: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly maxMs?: number;
  readonly offsetMs?: number;
  readonly offsetRttMs?: number;
  readonly cpuUsPerCall?: number;
  readonly format?: string;
}

/** What the section says besides the measurements. */
export interface StreamsRun {
  readonly date: Date;
  readonly minutes: number;
  readonly command: string;
  readonly loadBefore: string;
  readonly loadAfter: string;
  readonly runtimes: readonly { label: string; version: string }[];
  readonly rounds: number;
  readonly sizes: { download: number; upload: number; buffered: number };
  readonly lag: { count: number; every: number };
  readonly cpuCalls: number;
  readonly results: readonly Measured[];
  readonly notices: readonly string[];
}

const MiB = 2 ** 20;
const fixed = (n: number, digits = 1) => Number.isFinite(n) ? n.toFixed(digits) : "—";
const signed = (n: number) => `${n >= 0 ? "+" : "−"}${fixed(Math.abs(n), 0)}`;
const size = (bytes: number) =>
  bytes % 2 ** 30 === 0 ? `${bytes / 2 ** 30} GiB` : `${Math.round(bytes / 1e6)} MB`;

function table(head: string[], rows: string[][], numeric: number): string {
  const align = head.map((_, i) => (i < head.length - numeric ? "---" : "---:"));
  return [head, align, ...rows].map((row) => `| ${row.join(" | ")} |`).join("\n");
}

/** The measurements of one runtime label, case and client (and variant). */
function pick(run: StreamsRun, runtime: string, kase: string, client: string, variant?: string) {
  return run.results.filter((r) =>
    r.runtime === runtime && r.case === kase && r.client === client && r.variant === variant
  );
}

const mbps = (r: Measured) => (r.bytes ?? 0) / r.seconds / 1e6;
const med = (rs: readonly Measured[], f: (r: Measured) => number) => median(rs.map(f));
const verdict = (met: boolean | undefined) =>
  met === undefined ? "not run" : met ? "met" : "**missed**";

interface Reference {
  readonly download: string;
  readonly downloadName: string;
  readonly upload: string[];
  readonly buffered: string;
  readonly lag: string;
  readonly cpu: string;
}

const DENO: Reference = {
  download: "fetch",
  downloadName: "fetch + pipeTo",
  upload: ["fetchline-multipart", "fetchline-raw", "fetch-raw"],
  buffered: "fetch",
  lag: "fetch",
  cpu: "fetch",
};
const NODE: Reference = {
  download: "undici",
  downloadName: "undici.stream",
  upload: ["fetchline-multipart", "fetchline-raw", "fetchline-raw-stream", "undici-raw"],
  buffered: "undici",
  lag: "fetch",
  cpu: "undici",
};
const reference = (runtime: string) => runtime === "deno" ? DENO : NODE;

function targets(run: StreamsRun): string {
  const rows: string[][] = [];
  const growth = (rs: readonly Measured[]) => med(rs, (r) => r.rssGrowthMiB ?? NaN);
  for (const { label } of run.runtimes) {
    const ref = reference(label);
    const deno = label === "deno";
    const down = pick(run, label, "download", "fetchline");
    const downRef = pick(run, label, "download", ref.download);
    const g = growth(down);
    rows.push([
      `${label}: ${size(run.sizes.download)} streamed to a sink, RSS growth < 32 MiB`,
      deno ? "no stream(); raw fetch + pipeTo 40 MB" : "no stream()",
      `${fixed(g)} MiB (${ref.downloadName}: ${fixed(growth(downRef))} MiB)`,
      verdict(down.length ? g < 32 : undefined),
    ]);
    const ratio = med(down, mbps) / med(downRef, mbps);
    const versus = (client: string, name: string) => {
      const others = pick(run, label, "download", client);
      return others.length === 0
        ? ""
        : `; ${fixed(med(down, mbps) / med(others, mbps), 2)} × ${name}`;
    };
    rows.push([
      `${label}: streamed download ≥ 0.95 × ${ref.downloadName}`,
      "—",
      `${fixed(ratio, 2)} ×${versus("undici-request", "undici.request + reading")}${
        deno ? "" : versus("fetch", "Node's fetch + pipeTo")
      }`,
      verdict(down.length ? ratio >= 0.95 : undefined),
    ]);
    for (const client of ref.upload.filter((c) => c.startsWith("fetchline"))) {
      const up = pick(run, label, "upload", client);
      const u = growth(up);
      const form = client === "fetchline-multipart"
        ? "multipart, path in `files`"
        : client === "fetchline-raw"
        ? (deno ? "raw, `Deno.open().readable` as `body`" : "raw, `fs.openAsBlob()` as `body`")
        : "raw, `Readable.toWeb(createReadStream())` as `body`";
      rows.push([
        `${label}: upload ${size(run.sizes.upload)} from a path (${form}), RSS growth < 32 MiB`,
        client === "fetchline-multipart"
          ? `200 MB: 618 MB peak, ${deno ? "580" : "1,034"} MiB growth`
          : "—",
        `${fixed(u)} MiB`,
        verdict(up.length ? u < 32 : undefined),
      ]);
    }
    for (const chunked of [false, true]) {
      const variant = chunked ? "chunked" : "length";
      const b = pick(run, label, "buffered", "fetchline", variant);
      const times = med(b, (r) => (r.rssGrowthMiB ?? NaN) * MiB / (r.bytes ?? NaN));
      rows.push([
        `${label}: buffered ${size(run.sizes.buffered)} \`get()\` (${
          chunked ? "chunked" : "Content-Length"
        }), peak RSS growth < 1.25 × body`,
        "460 MB (2.1 ×)",
        `${fixed(med(b, (r) => (r.rssGrowthMiB ?? NaN) * MiB / 1e6), 0)} MB (${fixed(times, 2)} ×)`,
        verdict(b.length ? times < 1.25 : undefined),
      ]);
    }
    for (const format of ["sse", "ndjson"]) {
      const l = pick(run, label, "lag", "fetchline", format);
      const p99 = med(l, (r) => r.p99Ms ?? NaN);
      rows.push([
        `${label}: ${format === "sse" ? "SSE `events()`" : "NDJSON `lines()`"} lag p99 < 10 ms`,
        "the whole response",
        `${fixed(p99, 2)} ms (raw fetch: ${
          fixed(med(pick(run, label, "lag", ref.lag, format), (r) => r.p99Ms ?? NaN), 2)
        } ms)`,
        verdict(l.length ? p99 < 10 : undefined),
      ]);
    }
    const cpu = (client: string) =>
      med(pick(run, label, "cpu", client), (r) => r.cpuUsPerCall ?? NaN);
    const added = (client: string) => cpu(client) - cpu(ref.cpu);
    rows.push([
      `${label}: CPU a small call adds over ${
        label === "deno" ? "raw fetch" : "undici.request"
      }, streamed vs buffered`,
      "—",
      `${signed(added("fetchline-stream"))} µs vs ${
        signed(added("fetchline"))
      } µs (raw read by chunks: ${signed(added(`${ref.cpu}-stream`))} µs)`,
      "reported",
    ]);
  }
  return table(["target", "before", "measured", "verdict"], rows, 0);
}

function downloadTable(run: StreamsRun): string {
  const rows: string[][] = [];
  for (const { label } of run.runtimes) {
    const ref = reference(label);
    const base = med(pick(run, label, "download", ref.download), mbps);
    const clients = label === "deno"
      ? [ref.download, "fetch-byob", "fetchline"]
      : [ref.download, "undici-request", "fetch", "fetchline"];
    for (const client of clients) {
      const rs = pick(run, label, "download", client);
      if (rs.length === 0) continue;
      const speeds = rs.map(mbps);
      rows.push([
        label,
        client === ref.download
          ? ref.downloadName
          : client === "fetchline"
          ? "fetchline `stream()` + pipeTo"
          : client === "fetch-byob"
          ? "floor: raw fetch, BYOB reads into one reused array"
          : client === "undici-request"
          ? "undici.request, its body read"
          : "Node's fetch + pipeTo (the same Web streams)",
        fixed(median(speeds), 0),
        `${fixed(Math.min(...speeds), 0)}–${fixed(Math.max(...speeds), 0)}`,
        fixed(median(speeds) / base, 2),
        fixed(med(rs, (r) => r.cpuSeconds ?? NaN), 2),
        fixed(med(rs, (r) => r.rssGrowthMiB ?? NaN)),
        fixed(Math.max(...rs.map((r) => r.rssGrowthMiB ?? NaN))),
      ]);
    }
  }
  return table(
    [
      "runtime",
      "client",
      "MB/s (median)",
      "range",
      "× reference",
      "CPU s",
      "RSS growth MiB (median)",
      "max",
    ],
    rows,
    6,
  );
}

function simpleTable(run: StreamsRun, kase: "upload" | "buffered"): string {
  const rows: string[][] = [];
  for (const { label } of run.runtimes) {
    const ref = reference(label);
    const clients = kase === "upload" ? ref.upload : [ref.buffered, "fetchline"];
    const variants = kase === "upload" ? [undefined] : ["length", "chunked"];
    for (const variant of variants) {
      for (const client of clients) {
        const rs = pick(run, label, kase, client, variant);
        if (rs.length === 0) continue;
        const growth = med(rs, (r) => r.rssGrowthMiB ?? NaN);
        rows.push([
          label,
          variant === undefined
            ? client
            : `${client} (${variant === "length" ? "Content-Length" : "chunked"})`,
          fixed(med(rs, mbps), 0),
          fixed(med(rs, (r) => r.rssBeforeMiB ?? NaN)),
          fixed(med(rs, (r) => r.rssPeakMiB ?? NaN)),
          fixed(growth),
          fixed(growth * MiB / (rs[0]!.bytes ?? NaN), 2),
        ]);
      }
    }
  }
  return table(
    ["runtime", "client", "MB/s", "RSS before MiB", "peak MiB", "growth MiB", "growth ÷ body"],
    rows,
    5,
  );
}

function lagTable(run: StreamsRun): string {
  const rows: string[][] = [];
  for (const { label } of run.runtimes) {
    for (const format of ["sse", "ndjson"]) {
      for (const client of [reference(label).lag, "fetchline"]) {
        const rs = pick(run, label, "lag", client, format);
        if (rs.length === 0) continue;
        rows.push([
          label,
          format === "sse" ? "SSE" : "NDJSON",
          client === "fetchline"
            ? (format === "sse" ? "fetchline `events()`" : "fetchline `lines()`")
            : "raw fetch + TextDecoder (floor)",
          fixed(med(rs, (r) => r.p50Ms ?? NaN), 2),
          fixed(med(rs, (r) => r.p99Ms ?? NaN), 2),
          fixed(Math.max(...rs.map((r) => r.maxMs ?? NaN)), 2),
          `${fixed(med(rs, (r) => r.offsetMs ?? NaN), 3)} (${
            fixed(med(rs, (r) => r.offsetRttMs ?? NaN), 2)
          })`,
        ]);
      }
    }
  }
  return table(
    [
      "runtime",
      "format",
      "client",
      "p50 ms",
      "p99 ms",
      "max ms",
      "clock offset ms (its round trip)",
    ],
    rows,
    4,
  );
}

function cpuTable(run: StreamsRun): string {
  const rows: string[][] = [];
  for (const { label } of run.runtimes) {
    const ref = reference(label).cpu;
    const base = med(pick(run, label, "cpu", ref), (r) => r.cpuUsPerCall ?? NaN);
    for (const client of [ref, `${ref}-stream`, "fetchline", "fetchline-stream"]) {
      const rs = pick(run, label, "cpu", client);
      if (rs.length === 0) continue;
      const us = med(rs, (r) => r.cpuUsPerCall ?? NaN);
      const raw = label === "deno" ? "raw fetch" : "undici.request";
      rows.push([
        label,
        client === ref
          ? `${raw} + ${label === "deno" ? "bytes()" : "arrayBuffer()"}`
          : client === `${ref}-stream`
          ? `${raw}, body read by chunks`
          : client === "fetchline"
          ? "fetchline buffered `get()`"
          : "fetchline `stream()`, body read by chunks",
        fixed(us, 0),
        client === ref ? "reference" : signed(us - base),
        fixed(med(rs, (r) => (r as { calls?: number }).calls! / r.seconds), 0),
      ]);
    }
  }
  return table(
    ["runtime", "client", "CPU µs/call (median)", "added over reference", "calls/s"],
    rows,
    3,
  );
}

/** The section, markers included. */
export function streamsMarkdown(run: StreamsRun): string {
  const versions = run.runtimes.map((r) => `${r.label}: ${r.version}`).join("; ");
  const notices = run.notices.length === 0
    ? ""
    : `\n### Notices\n\n${run.notices.map((n) => `- ${n}`).join("\n")}\n`;
  return `<!-- streams:start -->

## Streams

Written by \`deno task bench:streams\` (bench/streams.ts); \`deno task bench\` keeps this section as
it is.

- Date: ${run.date.toISOString()} (the run took ${run.minutes.toFixed(1)} min)
- Command: \`${run.command}\`
- Runtimes: ${versions}
- Load average before / after: ${run.loadBefore} / ${run.loadAfter} (2 cores, shared: the ratios
  of one interleaved run are what count)

The server (bench/streams_server.ts) runs in its own Deno process and generates every byte it
sends (256 KiB chunks; nothing from disk) and drops every byte it receives. Each measurement runs
in a fresh client process (bench/streams_deno.ts, bench/node_streams.mjs), which warms up on a
small body first; reference and fetchline alternate in each of ${run.rounds} rounds and the tables
quote medians. RSS growth is the peak RSS sampled every millisecond during the transfer minus the
RSS just before it. Uploads read a sparse file made with truncate: its pages are the kernel's page
cache, not the client's RSS.

### Targets

${targets(run)}

### Streamed download (${size(run.sizes.download)} into a sink that counts and drops)

${downloadTable(run)}

The RSS a streamed body costs is the chunks the runtime hands over, fresh arrays each (their
memory is the caller's to keep), waiting for the garbage collector: V8 collects them once tens of
MiB of such memory have accumulated, for raw fetch and undici as much as for fetchline. The floor
row reads the same body into one array again and again (a BYOB reader): nothing is left to
collect, and the growth is the runtime's own. On Node, fetchline's body is a Web \`ReadableStream\`
as Node's own fetch's is, and goes about as fast: what both cost over undici's Node streams is the
Web streams' work per chunk (promises, queues, the copy a byte stream makes of each chunk it is
given).

### Upload (${size(run.sizes.upload)} from a path)

One round: memory is the target here. "Raw from a path" is \`(await Deno.open(path)).readable\` as \`body\` on Deno (it has
no Blob backed by a file) and \`await fs.openAsBlob(path)\` on Node (a Blob read from disk as it is
sent; \`Readable.toWeb(fs.createReadStream(path))\` beside it); multipart is the path in \`files\`.
The references send the same file with raw fetch (Deno) and \`undici.request\` (Node).

${simpleTable(run, "upload")}

### Buffered download (${size(run.sizes.buffered)}, the whole body read)

${simpleTable(run, "buffered")}

### SSE and NDJSON lag (${run.lag.count} records, one every ${run.lag.every} ms, each round)

The server stamps each record with \`performance.timeOrigin + performance.now()\` when it writes it;
the client reads the same clock when its reader yields the record. Both processes read the
system's clock; the client measures what offset is left from the fastest of 20 round trips to
\`/clock\` (the server's reading taken half-way) and corrects by it.

${lagTable(run)}

### CPU per call (small body, ${run.cpuCalls.toLocaleString("en-US")} calls at concurrency 16)

${cpuTable(run)}
${notices}
<!-- streams:end -->`;
}
