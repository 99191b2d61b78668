// Package counterpath owns counter paths as PDH writes them:
//
//	[\\computer]\object[(parent/instance#index)]\counter
//
// for example `\Processor(_Total)\% Processor Time`,
// `\\db7\Memory\Available Bytes` or `\Thread(chrome/3#1)\% Processor Time`.
// Parse and Path.String (PdhParseCounterPath and PdhMakeCounterPath) are
// exact inverses; Match compares a wildcard pattern with a concrete path.
//
// # Escaping
//
// Instance names on Linux contain the characters of the path syntax
// ("kworker/0:1", "(sd-pam)", "C#"). Windows providers avoid them by
// replacing them in the names they publish (.NET documents '(' -> '[',
// ')' -> ']', and '#', '/', '\' -> '_'), which cannot be undone. This
// package keeps names intact with one reversible rule instead: inside a
// path, a byte of a name that would clash with the syntax is written as
// '%' and two hex digits (upper case when written; either case is read):
//
//   - computer name: '\'
//   - object name: '(', ')', '\'
//   - parent and instance names: '(', ')', '/', '#', '\'
//
// and, in all three, '%' itself, control characters (below U+0020, U+007F)
// and bytes that are not valid UTF-8.
//
// One exception keeps mount points as a Linux administrator types them:
// an instance without a parent whose name starts with '/' is written with
// its slashes as they are, `\LogicalDisk(/home)\% Free Space` and
// `\LogicalDisk(/)\Free Megabytes`. Parse reads an instance section that
// starts with '/' as such an instance (never as an empty parent); a '/' in
// any other place still separates parent from instance, so the process
// "kworker/0:1" stays `kworker%2F0:1` and a parent's or a child's own '/'
// stays %2F. '(', ')', '#', '\' and '%' in a mount point are escaped as in
// other instance names. So the process "(sd-pam)" is
// `\Process(%28sd-pam%29)\Working Set` and the name "C#" with duplicate
// index 2 is `(C%23#2)`. A raw clashing character (or a '%' without two hex
// digits) in those names is a parse error that says where it is and what to
// write. Names that Windows has already substituted, like
// "Intel[R] PRO_1000", need no escapes. EscapeInstance and UnescapeInstance
// expose the instance rule.
//
// The counter name is the rest of the path after the separator that
// follows the object or instance part, so it is taken verbatim and never
// escaped ("% Processor Time", "Bytes Total/sec").
//
// An object name that itself ends in a parenthesised word (Windows has
// "TCPIP Performance Diagnostics (Per-CPU)") reads as object plus
// instance unless its parentheses are escaped; resolving that against the
// objects that exist is the consumer's business.
//
// # Wildcards
//
// '*' is the wildcard in parent, instance and counter names, and "#*" in
// the index. PdhExpandWildCardPath documents whole-name wildcards and
// `\LogicalDisk(*/*#*)\*`; its current documentation also allows partial
// instance names such as "svc*" while older pages say partial matches are
// not supported. Match accepts '*' anywhere in those three names (any run
// of characters, case-insensitively), a superset of both readings. The
// object name is never a wildcard. '*' is not escaped: in a pattern it is a
// wildcard, in a concrete path it is a literal character, so a name
// containing '*' round-trips but a pattern cannot single it out.
//
// # Instance indexes
//
// Instances with equal names are told apart by "#index", counted from 0 in
// order of appearance per parent; a path without an index means "#0" to
// Match, but Path keeps HasIndex so that Parse and String stay inverses.
package counterpath
