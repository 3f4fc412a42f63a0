/**
 * Types for the ES module build of punycode.js (its package's `module`
 * entry), the same functions as its CommonJS build. Imported by name, it
 * lets the bundler leave out what the page does not use; Node (≥ 20.19,
 * see `engines`) loads it by its module syntax.
 */
declare module 'punycode/punycode.es6.js' {
  export { decode, encode } from 'punycode';
}
