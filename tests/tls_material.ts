// TLS material for tests, made with /usr/bin/openssl in a temporary folder
// (removed at once): a CA, a server certificate for 127.0.0.1 (an IP SAN)
// that it signed, one for another name, an expired one, and a client
// certificate. Made once per test process. tests/node/tls_material.mjs is
// the Node suite's copy of the same recipe.

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
const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
const LEAF = "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n";

/** The files written before openssl runs. */
const FILES: Record<string, string> = {
  "server.ext": `${LEAF}extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n`,
  "other.ext": `${LEAF}extendedKeyUsage=serverAuth\nsubjectAltName=DNS:other.invalid\n`,
  "client.ext": `${LEAF}extendedKeyUsage=clientAuth\n`,
  // `openssl ca` is the one command of OpenSSL 3.0 that sets past dates.
  "ca.cnf": "[ca]\ndefault_ca=test\n[test]\ndatabase=index.txt\nnew_certs_dir=.\n" +
    "serial=serial\ndefault_md=sha256\npolicy=any\n[any]\ncommonName=supplied\n",
  "index.txt": "",
  "serial": "01\n",
};

/** The openssl commands, run in order in the folder. */
const COMMANDS: readonly string[][] = [
  [
    "req",
    "-x509",
    ...EC_KEY,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=fetchline test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ],
  [
    "req",
    "-new",
    ...EC_KEY,
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
    "-subj",
    "/CN=127.0.0.1",
  ],
  [
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-set_serial",
    "2",
    "-days",
    "2",
    "-extfile",
    "server.ext",
    "-out",
    "server.pem",
  ],
  [
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-set_serial",
    "3",
    "-days",
    "2",
    "-extfile",
    "other.ext",
    "-out",
    "other.pem",
  ],
  [
    "ca",
    "-batch",
    "-config",
    "ca.cnf",
    "-cert",
    "ca.pem",
    "-keyfile",
    "ca.key",
    "-in",
    "server.csr",
    "-out",
    "expired.pem",
    "-notext",
    "-extfile",
    "server.ext",
    "-startdate",
    "20200101000000Z",
    "-enddate",
    "20200102000000Z",
  ],
  [
    "req",
    "-new",
    ...EC_KEY,
    "-keyout",
    "client.key",
    "-out",
    "client.csr",
    "-subj",
    "/CN=fetchline test client",
  ],
  [
    "x509",
    "-req",
    "-in",
    "client.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-set_serial",
    "4",
    "-days",
    "2",
    "-extfile",
    "client.ext",
    "-out",
    "client.pem",
  ],
];

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
