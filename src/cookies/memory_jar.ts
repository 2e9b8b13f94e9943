// The jar a client keeps when `withCookies()` is given none: tough-cookie's
// CookieJar in memory, loaded by a dynamic import() on the first cookie the
// client receives (a client whose servers set none never loads it). The one
// place the Deno build imports an npm package (scripts/check_layout.ts).

import { type CookieJarLike, CookieLibraryError } from "./jar.ts";
import { runtimeName } from "../errors.ts";

/** What the jar uses of tough-cookie's `CookieJar`. */
interface ToughJar {
  readonly store: CookieStore;
  getCookieString(url: string): Promise<string>;
  setCookie(cookie: string, url: string): Promise<StoredCookie | undefined>;
}

/** What the jar uses of tough-cookie's module. */
interface ToughCookie {
  CookieJar: new () => ToughJar;
  getPublicSuffix(domain: string, options: { allowSpecialUseDomain: boolean }): string | undefined;
}

/** Loads tough-cookie's module; a test gives one that fails. */
export type CookieLibrary = () => Promise<ToughCookie>;

// How many cookies the jar keeps, bounded as Chromium bounds its own (RFC
// 6265 §6.1 asks for at least 50 per domain and 3000 in all): past 180
// cookies for one site (a registrable domain, or an address) it evicts down
// to 150, past 3300 in all down to 3000, so that it reads its store once per
// 30 or 300 new cookies, not at each. It evicts as RFC 6265 §5.3 says:
// expired cookies first, then the least recently used of a site over its
// bound, then the least recently used of all; of cookies last used at the
// same time, the older goes first.
const MAX_COOKIES_PER_SITE = 180;
const KEPT_COOKIES_PER_SITE = 150;
const MAX_COOKIES = 3300;
const KEPT_COOKIES = 3000;

/** What eviction reads of a tough-cookie `Cookie`. */
interface StoredCookie {
  readonly key: string;
  readonly domain: string | null;
  readonly path: string | null;
  readonly lastAccessed: Date | "Infinity" | null;
  readonly creationIndex: number;
  /** When it expires, in ms since the epoch (`Infinity` or `undefined`: never). */
  expiryTime(): number | undefined;
}

/** The methods of a tough-cookie `Store` eviction uses (their promise forms). */
interface CookieStore {
  getAllCookies(): Promise<StoredCookie[]>;
  removeCookie(domain: string | null, path: string | null, key: string): Promise<void>;
}

/** tough-cookie's jar, and the site of a cookie's domain. */
interface Loaded {
  readonly jar: ToughJar;
  readonly siteOf: (domain: string) => string;
}

/**
 * A cookie jar in memory, one per client: tough-cookie's, with its defaults
 * (public suffixes refused; `Secure` cookies stored and sent over https,
 * and over http to loopback and `localhost`, which browsers treat as secure
 * contexts too), kept within the bounds above. It knows the cookies stored
 * (one the store dropped itself, expired, is still counted until the next
 * eviction), and reads the whole store only when a new cookie takes a count
 * past its bound.
 */
export class MemoryCookieJar implements CookieJarLike {
  /** tough-cookie's jar, once a cookie has been received. */
  #loaded: Promise<Loaded> | undefined;
  readonly #load: CookieLibrary;
  /** The cookies stored, by domain, path and name, and how many a site has. */
  #known = new Set<string>();
  #sites = new Map<string, number>();

  constructor(load: CookieLibrary = () => import("tough-cookie")) {
    this.#load = load;
  }

  getCookieString(url: string): Promise<string> {
    // Nothing was ever stored: no need to load the library to say so.
    return this.#loaded === undefined
      ? Promise.resolve("")
      : this.#loaded.then(({ jar }) => jar.getCookieString(url));
  }

  setCookie(cookie: string, url: string): Promise<unknown> {
    this.#loaded ??= this.#load().then(({ CookieJar, getPublicSuffix }) => ({
      jar: new CookieJar(),
      // A site is a registrable domain (example.co.uk), or the host where there is none (an address).
      siteOf: (domain: string) => {
        try {
          return getPublicSuffix(domain, { allowSpecialUseDomain: true }) ?? domain;
        } catch {
          return domain;
        }
      },
    }), (cause) => {
      throw new CookieLibraryError(
        `Invalid cookies: ${runtimeName()} could not load the tough-cookie package of the ` +
          `default jar (${cause instanceof Error ? cause.name : typeof cause}); ` +
          "give withCookies() a jar of your own",
        { cause },
      );
    });
    return this.#loaded.then(async (loaded) => {
      const stored = await loaded.jar.setCookie(cookie, url);
      if (stored === undefined) return stored;
      const id = idOf(stored);
      // One that replaced a cookie of the same name, domain and path adds none.
      if (this.#known.has(id)) return stored;
      this.#known.add(id);
      const site = loaded.siteOf(stored.domain ?? "");
      const count = (this.#sites.get(site) ?? 0) + 1;
      this.#sites.set(site, count);
      if (count > MAX_COOKIES_PER_SITE || this.#known.size > MAX_COOKIES) await this.#evict(loaded);
      return stored;
    });
  }

  async #evict({ jar: { store }, siteOf }: Loaded): Promise<void> {
    const now = Date.now();
    const live: StoredCookie[] = [];
    const evicted: StoredCookie[] = [];
    for (const cookie of await store.getAllCookies()) {
      const expiry = cookie.expiryTime();
      (expiry !== undefined && expiry <= now ? evicted : live).push(cookie);
    }
    live.sort(byLastUse);
    const liveSites = live.map((cookie) => siteOf(cookie.domain ?? ""));
    const counts = new Map<string, number>();
    for (const site of liveSites) counts.set(site, (counts.get(site) ?? 0) + 1);
    // Past its bound, a site keeps its most recently used; then so does the store.
    const keep = live.length > MAX_COOKIES ? KEPT_COOKIES : MAX_COOKIES;
    const known = new Set<string>();
    const sites = new Map<string, number>();
    for (let i = live.length - 1; i >= 0; i--) {
      const cookie = live[i] as StoredCookie;
      const site = liveSites[i] as string;
      const count = (sites.get(site) ?? 0) + 1;
      const over = (counts.get(site) as number) > MAX_COOKIES_PER_SITE;
      const bound = over ? KEPT_COOKIES_PER_SITE : MAX_COOKIES_PER_SITE;
      if (count > bound || known.size >= keep) evicted.push(cookie);
      else {
        sites.set(site, count);
        known.add(idOf(cookie));
      }
    }
    for (const { domain, path, key } of evicted) await store.removeCookie(domain, path, key);
    this.#known = known;
    this.#sites = sites;
  }
}

/** A cookie's identity in a store: its domain, path and name. */
function idOf({ domain, path, key }: StoredCookie): string {
  return `${domain}\n${path}\n${key}`;
}

/** Least recently used first; of two used at the same time, the older first. */
function byLastUse(a: StoredCookie, b: StoredCookie): number {
  const lastUse = ({ lastAccessed }: StoredCookie) =>
    lastAccessed instanceof Date ? lastAccessed.getTime() : 0;
  return lastUse(a) - lastUse(b) || a.creationIndex - b.creationIndex;
}
