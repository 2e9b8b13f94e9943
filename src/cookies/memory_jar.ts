// The jar a client keeps when `withCookies()` is given none: tough-cookie's
// CookieJar in memory (RFC 6265 with the public-suffix list, through tldts),
// loaded by a dynamic import() on the first cookie the client receives, so
// a client without cookies, or one whose servers never set any, neither
// loads nor evaluates it. This file is the one place the Deno build imports
// an npm package (scripts/check_layout.ts allows it here and nowhere else).
// How many cookies it keeps (its eviction) is at the end of the file.

import { type CookieJarLike, CookieLibraryError } from "./jar.ts";
import { runtimeName } from "../transport/failures.ts";

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

/**
 * A cookie jar in memory, one per client: tough-cookie's, with its defaults
 * (public suffixes refused; `Secure` cookies stored and sent over https,
 * and over http to loopback and `localhost`, which browsers treat as secure
 * contexts too), keeping at most 180 cookies per site and 3000 in all
 * (see below).
 */
export class MemoryCookieJar implements CookieJarLike {
  /** tough-cookie's jar and its bounds, once a cookie has been received. */
  #jar: Promise<{ jar: ToughJar; eviction: CookieEviction }> | undefined;
  readonly #load: CookieLibrary;

  constructor(load: CookieLibrary = () => import("tough-cookie")) {
    this.#load = load;
  }

  getCookieString(url: string): Promise<string> {
    // Nothing was ever stored: no need to load the library to say so.
    return this.#jar === undefined
      ? Promise.resolve("")
      : this.#jar.then(({ jar }) => jar.getCookieString(url));
  }

  setCookie(cookie: string, url: string): Promise<unknown> {
    this.#jar ??= this.#load().then(({ CookieJar, getPublicSuffix }) => {
      const jar = new CookieJar();
      // A site is a registrable domain (example.co.uk), or the host where there is none (an address).
      const siteOf = (domain: string) => {
        try {
          return getPublicSuffix(domain, { allowSpecialUseDomain: true }) ?? domain;
        } catch {
          return domain;
        }
      };
      return { jar, eviction: new CookieEviction(jar.store, siteOf) };
    }, (cause) => {
      throw new CookieLibraryError(
        `Invalid cookies: ${runtimeName()} could not load the tough-cookie package of the ` +
          `default jar (${cause instanceof Error ? cause.name : typeof cause}); ` +
          "give withCookies() a jar of your own",
        { cause },
      );
    });
    return this.#jar.then(async ({ jar, eviction }) => {
      const stored = await jar.setCookie(cookie, url);
      if (stored !== undefined) await eviction.stored(stored);
      return stored;
    });
  }
}

// How many cookies the client's own jar keeps, bounded as Chromium bounds
// its own (RFC 6265 §6.1 asks for at least 50 per domain and 3000 in all):
// past 180 cookies for one site the jar evicts down to 150, past 3300 in all
// down to 3000, so that it reads its store once per 30 or 300 new cookies,
// not at each. It evicts as RFC 6265 §5.3 says: expired cookies first, then
// the least recently used of a site over its bound, then the least recently
// used of all; of cookies last used at the same time, the older goes first.

/** The most cookies the client's own jar keeps for one site (a registrable domain, or an address). */
export const MAX_COOKIES_PER_SITE = 180;

/** The cookies of a site kept when one more passes {@linkcode MAX_COOKIES_PER_SITE}. */
export const KEPT_COOKIES_PER_SITE = 150;

/** The most cookies the client's own jar keeps in all. */
export const MAX_COOKIES = 3300;

/** The cookies kept when one more passes {@linkcode MAX_COOKIES}. */
export const KEPT_COOKIES = 3000;

/** What eviction reads of a tough-cookie `Cookie`. */
export interface StoredCookie {
  readonly key: string;
  readonly domain: string | null;
  readonly path: string | null;
  readonly lastAccessed: Date | "Infinity" | null;
  readonly creationIndex: number;
  /** When it expires, in ms since the epoch (`Infinity` or `undefined`: never). */
  expiryTime(): number | undefined;
}

/** The methods of a tough-cookie `Store` eviction uses (their promise forms). */
export interface CookieStore {
  getAllCookies(): Promise<StoredCookie[]>;
  removeCookie(domain: string | null, path: string | null, key: string): Promise<void>;
}

/**
 * Keeps a store within {@linkcode MAX_COOKIES_PER_SITE} and
 * {@linkcode MAX_COOKIES}. It knows the cookies stored (a cookie the store
 * dropped itself, expired, is still counted until the next eviction), and
 * reads the whole store only when a new cookie takes a count past its bound.
 */
export class CookieEviction {
  readonly #store: CookieStore;
  readonly #siteOf: (domain: string) => string;
  /** The cookies stored, by domain, path and name. */
  #known = new Set<string>();
  #sites = new Map<string, number>();

  /**
   * @param store The jar's store.
   * @param siteOf The site of a cookie's domain.
   */
  constructor(store: CookieStore, siteOf: (domain: string) => string) {
    this.#store = store;
    this.#siteOf = siteOf;
  }

  /** Counts `cookie`, just stored, and evicts when the store may be over a bound. */
  async stored(cookie: StoredCookie): Promise<void> {
    const id = idOf(cookie);
    // One that replaced a cookie of the same name, domain and path adds none.
    if (this.#known.has(id)) return;
    this.#known.add(id);
    const site = this.#siteOf(cookie.domain ?? "");
    const count = (this.#sites.get(site) ?? 0) + 1;
    this.#sites.set(site, count);
    if (count > MAX_COOKIES_PER_SITE || this.#known.size > MAX_COOKIES) await this.#evict();
  }

  async #evict(): Promise<void> {
    const now = Date.now();
    const live: StoredCookie[] = [];
    const evicted: StoredCookie[] = [];
    for (const cookie of await this.#store.getAllCookies()) {
      const expiry = cookie.expiryTime();
      (expiry !== undefined && expiry <= now ? evicted : live).push(cookie);
    }
    live.sort(byLastUse);
    const liveSites = live.map((cookie) => this.#siteOf(cookie.domain ?? ""));
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
    for (const { domain, path, key } of evicted) await this.#store.removeCookie(domain, path, key);
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
  return lastUse(a) - lastUse(b) || a.creationIndex - b.creationIndex;
}

function lastUse(cookie: StoredCookie): number {
  const { lastAccessed } = cookie;
  return lastAccessed instanceof Date ? lastAccessed.getTime() : 0;
}
