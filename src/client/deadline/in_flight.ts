// The steps of calls in flight, in this realm: an intrusive doubly-linked
// list, so joining and leaving it allocates nothing and leaves nothing
// behind. (A Set or Map of the objects in flight, added to and deleted from
// once per request, made V8's young-generation collections several times
// slower: the objects reachable from them were kept, then promoted.)
// The shared timeout tick scans it for deadlines; a client's close scans it
// for its own steps.

/** An entry of the list; its links belong to the list. */
export interface InFlight {
  /** The entry before this one, while in the list. */
  prevInFlight: InFlight | undefined;
  /** The entry after this one, while in the list. */
  nextInFlight: InFlight | undefined;
}

let first: InFlight | undefined;

/** Adds `entry` to the list. */
export function link(entry: InFlight): void {
  entry.prevInFlight = undefined;
  entry.nextInFlight = first;
  if (first !== undefined) first.prevInFlight = entry;
  first = entry;
}

/** Removes `entry` from the list; an entry not in it is left alone. */
export function unlink(entry: InFlight): void {
  const { prevInFlight: prev, nextInFlight: next } = entry;
  if (prev !== undefined) prev.nextInFlight = next;
  else if (first === entry) first = next;
  else return;
  if (next !== undefined) next.prevInFlight = prev;
  entry.prevInFlight = undefined;
  entry.nextInFlight = undefined;
}

/** Calls `visit` with every entry; `visit` may unlink the entry it is given. */
export function forEachInFlight(visit: (entry: InFlight) => void): void {
  let entry = first;
  while (entry !== undefined) {
    const next = entry.nextInFlight;
    visit(entry);
    entry = next;
  }
}
