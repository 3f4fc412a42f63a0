/**
 * The one Unicode version every rule of the page and the local API judges
 * characters by, whatever the engine (docs/url-and-email-rules.md, "One
 * verdict"). Data, not logic: the rules and the tests' oracles share it.
 */

/**
 * Characters whose Unicode properties an engine could judge differently: the
 * ones assigned in Unicode 15.1, 16.0 and 17.0 (merged with the unassigned
 * code points between them, which are refused anyway), and U+1171E, a mark
 * that Unicode 16.0 moved from Mn to Mc. Unicode 15.0 is the oldest version
 * among the engines the page is tested in (Debian 12's WebKitGTK uses ICU
 * 72), so below it every engine agrees on a character's category, NFKC form
 * and lower case. Listed from a comparison of ICU 72's tables with Node's
 * (Unicode 17.0); extend it when an engine moves to a newer version.
 */
export const NEWER_THAN_UNICODE_15 =
  // eslint-disable-next-line no-misleading-character-class -- single code points, tested one by one; nothing here is meant to combine
  /[\u088f\u0897\u0c5c\u0cdc\u1acf-\u1aeb\u1b4e-\u1b4f\u1b7f\u1c89-\u1c8a\u20c1\u2427-\u2429\u2b96\u2ffc-\u2fff\u31e4-\u31ef\ua7cb-\ua7cf\ua7d2\ua7d4\ua7da-\ua7f1\ufbc3-\ufbd2\ufd90-\ufd91\ufdc8-\ufdce\u{105c0}-\u{105f3}\u{10940}-\u{10959}\u{10d40}-\u{10d8f}\u{10ec2}-\u{10efc}\u{11380}-\u{113e2}\u{116d0}-\u{116e3}\u{1171e}\u{11b60}-\u{11bf9}\u{11db0}-\u{11de9}\u{11f5a}\u{13460}-\u{143fa}\u{16100}-\u{16139}\u{16d40}-\u{16d79}\u{16ea0}-\u{16ed3}\u{16ff2}-\u{16ff6}\u{187f8}-\u{187ff}\u{18cff}\u{18d09}-\u{18df2}\u{1cc00}-\u{1cef0}\u{1e5d0}-\u{1e6ff}\u{1f6d8}\u{1f777}-\u{1f77a}\u{1f8b2}-\u{1f8d8}\u{1fa54}-\u{1fa57}\u{1fa89}-\u{1fa8f}\u{1fabe}\u{1fac6}-\u{1facd}\u{1fadc}-\u{1fadf}\u{1fae9}-\u{1faef}\u{1fbcb}-\u{1fbef}\u{1fbfa}\u{2b73a}-\u{2b73f}\u{2cea2}-\u{2cead}\u{2ebf0}-\u{2ee5d}\u{323b0}-\u{33479}]/u;

/** The Unicode version the page and the API judge characters by. */
export const UNICODE_BASELINE = '15.0';
