/**
 * Which Node lines the npm build's suite runs on, and how each one's `node`
 * is started: the machine's own `node` for the line it is, `npx -y node@<major>`
 * (the `node` package of the npm registry, cached after the first run) for the
 * others.
 *
 * @module
 */

/** The oldest Node line the npm build runs on: undici 8, its transport, needs 22.19.0. */
export const OLDEST_LINE = 22;

/** The lines users run and the suite covers whatever the machine has: the LTS lines. */
export const LTS_LINES: readonly number[] = [22, 24];

/** One Node line to run the suite on. */
export interface NodeLine {
  /** The major version, such as 22. */
  readonly major: number;
  /** The command that starts this line's `node`. */
  readonly command: string;
  /** The arguments that come before `node`'s own. */
  readonly args: readonly string[];
  /** Whether the command is the machine's own `node` rather than one from the registry. */
  readonly machine: boolean;
}

/**
 * The lines `spec` names (majors joined by commas, such as `"22,24"`) or,
 * when it is absent or blank, the machine's line (when it is
 * {@linkcode OLDEST_LINE} or later) and the {@linkcode LTS_LINES}; sorted,
 * each once.
 *
 * @param spec The `FETCHLINE_NODE_LINES` variable, if set.
 * @param machineMajor The major version of the machine's `node`, if it has one.
 * @returns The lines, oldest first.
 * @throws {RangeError} When an entry is not a major version of {@linkcode OLDEST_LINE} or later.
 */
export function nodeLines(spec: string | undefined, machineMajor: number | undefined): NodeLine[] {
  const majors = spec === undefined || spec.trim() === ""
    ? [
      ...(machineMajor !== undefined && machineMajor >= OLDEST_LINE ? [machineMajor] : []),
      ...LTS_LINES,
    ]
    : spec.split(",").map((entry) => parseMajor(entry.trim()));
  return [...new Set(majors)].sort((a, b) => a - b).map((major) =>
    major === machineMajor
      ? { major, command: "node", args: [], machine: true }
      : { major, command: "npx", args: ["-y", `node@${major}`], machine: false }
  );
}

function parseMajor(entry: string): number {
  const major = /^\d{1,3}$/.test(entry) ? Number(entry) : NaN;
  if (!(major >= OLDEST_LINE)) {
    throw new RangeError(
      `Invalid FETCHLINE_NODE_LINES: expected Node major versions of ${OLDEST_LINE} or later ` +
        `joined by commas (such as 22,24), got "${entry}"`,
    );
  }
  return major;
}
