// What a credential is, decided here and nowhere else: every log line,
// error message, view, HAR file, cache key and store, and every hop that
// leaves an origin asks these two functions.

/** Header names that always carry a credential, lower-case. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
]);

/**
 * A header or field name that looks like a credential's: `X-Auth-Token`,
 * `Private-Token`, `X-Vault-Token`, `X-Session-Key`, `client_secret`.
 * It masks more than needed (`author`, `keyword`); a header that only looks
 * like one is named in `withCredentialHeaders({ except })`.
 */
const CREDENTIAL_LIKE = /auth|token|secret|key|cookie|session|passw|signature|jwt|dpop/i;

/**
 * Field names (query parameters, form fields, JSON keys) that carry a
 * credential without looking like one, lower-case: `pwd`, OAuth's
 * `client_assertion` and `code_verifier`, one-time codes, and the signature
 * parameters of signed URLs (`sig`: Azure SAS). Left out on purpose: `code`,
 * which names error, country and promotion codes far more often than the
 * OAuth authorization code (that one arrives at a redirect URI; a client
 * sends it in a form body), and `state` and `sid`, which are not credentials.
 */
const CREDENTIAL_FIELDS: ReadonlySet<string> = new Set([
  "password",
  "pwd",
  "passwd",
  "client_secret",
  "client_assertion",
  "refresh_token",
  "access_token",
  "id_token",
  "code_verifier",
  "signature",
  "jwt",
  "otp",
  "sig",
]);

/**
 * Names a client adds to the credentials, lower-case (the headers its auth
 * hooks and signers declare, `withCredentialHeaders({ add })`, and
 * `sensitiveKeys`, which name fields too), with the header names it takes
 * out of "looks like a credential" (`withCredentialHeaders({ except })`).
 * A plain set of names is a rule without exceptions.
 */
export type CredentialNames = ReadonlySet<string> & {
  /** Header names that only look like credentials (`idempotency-key`), lower-case. */
  readonly except?: ReadonlySet<string> | undefined;
};

const NO_NAMES: CredentialNames = new Set();

/**
 * `names` (lower-cased) with `except` (lower-cased) as its exceptions:
 * `undefined` when both are empty, so that a client with neither carries
 * no rule.
 */
export function credentialNames(
  names: Iterable<string>,
  except: Iterable<string> = [],
): CredentialNames | undefined {
  const added = new Set([...names].map((name) => name.toLowerCase()));
  const excepted = new Set([...except].map((name) => name.toLowerCase()));
  if (excepted.size === 0) return added.size === 0 ? undefined : added;
  return Object.assign(added, { except: excepted });
}

/**
 * True when the header `name` carries a credential: one of
 * {@linkcode CREDENTIAL_HEADERS}, one of `names`, or one that looks like a
 * credential unless `names.except` holds it.
 */
export function isCredentialHeader(name: string, names: CredentialNames = NO_NAMES): boolean {
  const lower = name.toLowerCase();
  if (CREDENTIAL_HEADERS.has(lower) || names.has(lower)) return true;
  return CREDENTIAL_LIKE.test(lower) && names.except?.has(lower) !== true;
}

/**
 * True when a field (a query parameter, a form field, a JSON key) named
 * `name` carries a credential: it looks like one, is one of the fields
 * that carry one without looking like it, or is one of `names`. A query's
 * name is read as a server reads it: percent-decoded (`%61pi_key`, `api+key`)
 * and without an array suffix (`token[]`, `api_key[0]`).
 */
export function isCredentialField(name: string, names: CredentialNames = NO_NAMES): boolean {
  let field = /[%+]/.test(name)
    ? new URLSearchParams(`${name}=`).keys().next().value ?? name
    : name;
  // PHP and Rails read `token[]=…` and `token[0]=…` as the parameter `token`.
  if (field.endsWith("]")) {
    const bracket = field.indexOf("[");
    if (bracket > 0) field = field.slice(0, bracket);
  }
  const lower = field.toLowerCase();
  return CREDENTIAL_LIKE.test(lower) || CREDENTIAL_FIELDS.has(lower) || names.has(lower);
}

/**
 * The names of `first` and `second` together, with the exceptions of both;
 * one of them as it is when the other adds nothing.
 */
export function bothNames(
  first: CredentialNames | undefined,
  second: CredentialNames | undefined,
): CredentialNames {
  if (second === undefined || second.size === 0 && second.except === undefined) {
    return first ?? NO_NAMES;
  }
  if (first === undefined || first.size === 0 && first.except === undefined) return second;
  return credentialNames(
    [...first, ...second],
    [...first.except ?? [], ...second.except ?? []],
  ) ?? NO_NAMES;
}
