// Package state owns perfc's state directory: what `perfc lodctr`
// registers, so that every command and every run sees the same title
// indexes. It holds the directory's lock, writes every file atomically,
// and keeps
//
//   - the title database (titles, in the titles package's text format),
//   - the V2 registrations (providers.json: per provider its GUID, the
//     manifest it came from, the title indexes of its counter sets and
//     counters, and the uids allowed to publish them),
//   - a copy of each registered manifest with its parsed form
//     (manifests/), so that commands do not parse XML at start-up,
//   - the V1 registrations (v1.json: out-of-process collect providers,
//     registered from a JSON file or, with First/Last Counter/Help and
//     every language's names, from a V1 .ini file),
//   - the data collector set definitions of perfc logman (sets/NAME.xml,
//     the DataCollectorSet XML of package collectorset; sets.go), each
//     read on its own so that a damaged one costs only its set.
//
// The directory is $PERFC_STATE_DIR, else /var/lib/perfc for root and
// $XDG_STATE_HOME/perfc for other users (Path). It is trusted only when it
// deserves it: the directory, every file read in it, and every directory
// above it must be owned by the effective user or root and writable by
// nobody else, and no file is reached through a symbolic link; a V1
// provider's executable is held to the same rule before it runs
// (CheckExecutable). Anything else is refused with a TrustError naming
// the file and the fix. A damaged file costs only what it describes: Read
// leaves it out and reports it in State.Problems, with how to repair it.
//
// README.md in this directory describes the files, their formats and the
// trust rules in full.
//
// The host package reads the state with Read to assemble the local
// machine; lodctr registers with Register, RegisterV1 and
// RegisterV1Offsets (a V1 .ini file's names, given a block of indexes
// after Last Counter); commands that
// only need names (dump, relog) call Titles. This package imports no
// engine, host or collector: the names of the host's built-in objects
// come in through a function (RegisterOptions.Builtin, Titles' builtin).
package state
