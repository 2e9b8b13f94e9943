// The TLS settings of a client (`withTls`): checked once at the builder, kept
// frozen, and shown with the private key masked in every view. The runtime's
// pool (runtime.ts, runtime_node.ts) turns them into its own options.

import { checkKnownKeys, describeType, isPlainRecord, keysOf } from "../models/_validate.ts";

/**
 * Options of `HttpClientConfigBuilder.withTls()`.
 *
 * @example Trust a private CA
 * ```ts
 * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
 * const config = new HttpClientConfigBuilder().withTls({ caCerts: [pem] }).build();
 * assert.deepEqual(config.tls?.caCerts, [pem]);
 * ```
 */
export interface TlsOptions {
  /**
   * Extra CA certificates (PEM) trusted beside the system's roots, for
   * servers whose certificates a private CA signed.
   */
  caCerts?: readonly string[] | undefined;
  /** The client certificate chain (PEM), sent when a server asks for one; needs `key`. */
  cert?: string | undefined;
  /** The client certificate's private key (PEM); needs `cert`. A secret: masked in every view. */
  key?: string | undefined;
}

/** The checked TLS settings of a built configuration, frozen; `key` is masked in their views. */
export type TlsSettings = Readonly<TlsOptions>;

const KNOWN_KEYS = keysOf<TlsOptions>({ caCerts: true, cert: true, key: true });
const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const PRIVATE_KEY = /-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----[\s\S]+?-----END \1-----/;

/**
 * Checks `options` and returns them frozen, with a masked view. Every
 * failure is a `TypeError` naming the field; the key's text is never quoted.
 */
export function checkTls(options: TlsOptions): TlsSettings {
  if (!isPlainRecord(options)) {
    throw new TypeError(`Invalid tls: expected an object, got ${describeType(options)}`);
  }
  checkKnownKeys("tls", options, KNOWN_KEYS);
  const { caCerts, cert, key } = options;
  const settings: TlsOptions = {};
  if (caCerts !== undefined) settings.caCerts = Object.freeze(checkCaCerts(caCerts));
  if ((cert === undefined) !== (key === undefined)) {
    throw new TypeError(
      `Invalid tls.${
        cert === undefined ? "cert" : "key"
      }: a client certificate needs both cert and key`,
    );
  }
  if (cert !== undefined) {
    settings.cert = checkPem("tls.cert", cert, CERTIFICATE, "a PEM certificate");
    settings.key = checkPem("tls.key", key, PRIVATE_KEY, "a PEM private key");
  }
  return Object.freeze(withMaskedKey(settings));
}

function checkCaCerts(caCerts: unknown): string[] {
  if (!Array.isArray(caCerts)) {
    throw new TypeError(
      `Invalid tls.caCerts: expected an array of PEM certificates, got ${describeType(caCerts)}`,
    );
  }
  return caCerts.map((pem, index) =>
    checkPem(`tls.caCerts[${index}]`, pem, CERTIFICATE, "a PEM certificate")
  );
}

/** `value` when it is a string holding a PEM block of the kind `pattern` matches; never quotes it. */
function checkPem(field: string, value: unknown, pattern: RegExp, expected: string): string {
  if (typeof value !== "string") {
    throw new TypeError(`Invalid ${field}: expected ${expected}, got ${describeType(value)}`);
  }
  if (!pattern.test(value)) {
    throw new TypeError(`Invalid ${field}: expected ${expected} (a -----BEGIN …----- block)`);
  }
  return value;
}

/** The view of TLS settings: the key masked. */
export function tlsView(settings: TlsSettings): Record<string, unknown> {
  return { ...settings, ...(settings.key === undefined ? {} : { key: "***" }) };
}

type Inspect = (value: unknown, options?: unknown) => string;

/** Gives `settings` a `toJSON()` and `console.log()` views with the key masked (not enumerable). */
function withMaskedKey<T extends TlsSettings>(settings: T): T {
  const show = (inspect: Inspect, options: unknown) => inspect(tlsView(settings), options);
  return Object.defineProperties(settings, {
    toJSON: { value: () => tlsView(settings) },
    [Symbol.for("Deno.customInspect")]: { value: show },
    [Symbol.for("nodejs.util.inspect.custom")]: {
      value: (_depth: number, options: unknown, inspect: Inspect) => show(inspect, options),
    },
  });
}
