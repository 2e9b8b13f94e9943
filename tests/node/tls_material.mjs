// The Node suite's TLS material, and the recipe tests/tls_material.ts shares:
// made with /usr/bin/openssl in a temporary folder (removed at once), once
// per test process. makeTlsMaterial() resolves to { caCert, serverCert,
// serverKey, otherNameCert (for other.invalid), expiredCert (2020-01-01),
// clientCert, clientKey }, all PEM; every certificate but the CA's was
// signed by caCert, the server ones with serverKey.

import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const OPENSSL = "/usr/bin/openssl";
const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
const LEAF = "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n";

/** The files written before openssl runs. */
export const FILES = {
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
export const COMMANDS = [
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

let made;

/** The test TLS material, made on the first call. */
export function makeTlsMaterial() {
  return made ??= generate();
}

async function generate() {
  const dir = await mkdtemp(join(tmpdir(), "fetchline-tls-"));
  try {
    for (const [name, text] of Object.entries(FILES)) await writeFile(join(dir, name), text);
    for (const args of COMMANDS) await run(OPENSSL, args, { cwd: dir, timeout: 10_000 });
    const read = (name) => readFile(join(dir, name), "utf8");
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
    await rm(dir, { recursive: true, force: true });
  }
}
