// For the npm build's compiler only: http-cache-semantics ships its types as
// JSDoc in JavaScript, which TypeScript does not read from a package;
// src/cache/policy.ts types the few methods it uses itself.
declare module "http-cache-semantics" {
  const CachePolicy: unknown;
  export default CachePolicy;
}
