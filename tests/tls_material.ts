// TLS material for tests, made with /usr/bin/openssl in a temporary folder
// (removed at once): a CA, a server certificate for 127.0.0.1 (an IP SAN)
// that it signed, one for another name, an expired one, and a client
// certificate. Made once per test process, by the recipe (the files and
// the openssl commands) the Node suite's tests/node/tls_material.mjs holds.

import { COMMANDS, FILES } from "./node/tls_material.mjs";

/** PEM texts for TLS tests; every certificate but the CA's was signed by `caCert`. */
export interface TlsMaterial {
  readonly caCert: string;
  /** For 127.0.0.1 (IP SAN), with `serverKey`. */
  readonly serverCert: string;
  readonly serverKey: string;
  /** For `other.invalid` only, with `serverKey`: a name mismatch on 127.0.0.1. */
  readonly otherNameCert: string;
  /** For 127.0.0.1, valid only on 1 January 2020, with `serverKey`. */
  readonly expiredCert: string;
  /** A client certificate (clientAuth), with `clientKey`. */
  readonly clientCert: string;
  readonly clientKey: string;
}

const OPENSSL = "/usr/bin/openssl";

let made: Promise<TlsMaterial> | undefined;

/** The test TLS material, made on the first call. */
export function makeTlsMaterial(): Promise<TlsMaterial> {
  return made ??= generate();
}

async function generate(): Promise<TlsMaterial> {
  const dir = await Deno.makeTempDir({ prefix: "fetchline-tls-" });
  try {
    for (const [name, text] of Object.entries(FILES)) {
      await Deno.writeTextFile(`${dir}/${name}`, text);
    }
    for (const args of COMMANDS) {
      const { success, stderr } = await new Deno.Command(OPENSSL, {
        args,
        cwd: dir,
        stdout: "null",
      })
        .output();
      if (!success) {
        throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(stderr)}`);
      }
    }
    const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
    return {
      caCert: await read("ca.pem"),
      serverCert: await read("server.pem"),
      serverKey: await read("server.key"),
      otherNameCert: await read("other.pem"),
      expiredCert: await read("expired.pem"),
      clientCert: await read("client.pem"),
      clientKey: await read("client.key"),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
