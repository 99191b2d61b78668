package main

import (
	"context"
	"os"
	"strings"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/tool/lodctr"
	"github.com/perfcounters/perfcounters/state"
)

func lodctrCommand() command {
	return command{
		name:  "lodctr",
		usage: "[/m:]MANIFEST [path] [/u:USER[,USER...]] | FILE.ini [/exec:PATH [/arg:ARG...]] | /v1:FILE | /q[:NAME]   [-v]",
		short: "register a provider's counters (V2 manifest, V1 .ini file) in the state directory ($PERFC_STATE_DIR)",
		run:   runLodctr,
		help: helpScreen{
			about: "Lodctr registers a provider's counters in the state directory: a V2\nprovider's counters manifest, a V1 provider's .ini and symbol files, or a\nV1 (out-of-process collect) provider's JSON registration.",
			usage: []string{
				"perfc lodctr [/m:]MANIFEST [path] [/u:USER[,USER...]] [-v]",
				"perfc lodctr FILE.ini [/exec:PATH [/arg:ARG]...] [-v]",
				"perfc lodctr /v1:FILE",
				"perfc lodctr /q",
			},
			opts: [][2]string{
				{"/m:MANIFEST", "The counters manifest to register (a plain argument works too)."},
				{"/u:USERS", "The users (names or uids, separated by commas) whose processes may publish the provider's counter sets, e.g. the service user: /u:www-data,1001. Default: you. Data published by anyone else is ignored and reported."},
				{"/exec:PATH", "(With FILE.ini) the V1 provider's executable, which speaks collect/PROTOCOL.md; relative to the working directory. Without it, the executable of the V1 provider already registered under the .ini's drivername is kept."},
				{"/arg:ARG", "(With /exec:) one argument of the executable; repeat it."},
				{"/v1:FILE", "A V1 provider's JSON registration file."},
				{"/q[:NAME]", "List the registrations (and any damaged ones), or the provider NAME's alone."},
				{"-v", "List the title index of every set and counter."},
			},
			notes: lodctrNotes,
			examples: [][2]string{
				{"Register a manifest whose sets www-data publishes:", "perfc lodctr /m:httpserver.man /u:www-data"},
				{"Register a V1 provider's .ini file and its executable:", "perfc lodctr transfer.ini /exec:/usr/lib/transfer/perfprovider /arg:--quiet"},
				{"Register a V1 provider from its JSON file:", "perfc lodctr /v1:widgets.json"},
				{"List the registrations:", "perfc lodctr /q"},
			},
		},
	}
}

func unlodctrCommand() command {
	return command{
		name:  "unlodctr",
		usage: "/m:MANIFEST | PROVIDER-GUID | PROVIDER-NAME | DRIVERNAME | FILE.ini | /v1:NAME   [-v]",
		short: "remove a provider registered with lodctr",
		run:   runUnlodctr,
		help: helpScreen{
			about: "Unlodctr removes a provider registered with lodctr.",
			usage: []string{
				"perfc unlodctr /m:MANIFEST [-v]",
				"perfc unlodctr GUID | PROVIDER-NAME",
				"perfc unlodctr DRIVERNAME | FILE.ini",
				"perfc unlodctr /v1:NAME",
			},
			opts: [][2]string{
				{"/m:MANIFEST", "Remove the providers the manifest declares."},
				{"/v1:NAME", "Remove the V1 provider registered as NAME."},
				{"-v", "List the title index of every set and counter removed."},
			},
			params: [][2]string{
				{"GUID | PROVIDER-NAME", "One registered V2 provider."},
				{"DRIVERNAME | FILE.ini", "A V1 provider registered from an .ini file."},
			},
			notes: lodctrNotes,
			examples: [][2]string{
				{"Remove a V2 provider by its name:", "perfc unlodctr PerfcExampleHTTPServer"},
				{"Remove a V1 provider registered from an .ini file:", "perfc unlodctr PerfcTransfer"},
			},
		},
	}
}

// hostOptions returns the host options every command uses: the state
// directory ($PERFC_STATE_DIR, else /var/lib/perfc for root and
// $XDG_STATE_HOME/perfc otherwise), the segment directory
// base ($PERFC_SHM_DIR, else /dev/shm, holding one perfc-<uid> directory
// per publishing user), and the program's decision on RLIMIT_NOFILE:
// perfc is a program of its own, so it lets the host raise the limit to
// fs.nr_open when a process scan needs more descriptors than the limit
// leaves (where the kernel allows it; a scan of a small host never asks).
func hostOptions(e *env) (host.Options, error) {
	dir, err := state.Path(e.getenv, os.Geteuid())
	if err != nil {
		return host.Options{}, err
	}
	return host.Options{StateDir: dir, SegmentDir: e.getenv("PERFC_SHM_DIR"), RaiseFileLimit: true}, nil
}

// winArgs are the arguments of lodctr and unlodctr in Windows syntax:
// options start with '/' or '-', take their value after ':'
// ("/m:file.man"), and are case-insensitive.
type winArgs struct {
	manifest string   // /m:
	v1       string   // /v1: a V1 provider's registration file (lodctr) or name (unlodctr)
	users    string   // /u: the users who will publish the provider's sets (lodctr)
	exec     string   // /exec: a V1 .ini provider's executable (lodctr)
	args     []string // /arg: its arguments, one each (lodctr)
	query    bool     // /q
	queryFor string   // /q:NAME, the provider to list
	verbose  bool     // -v
	pos      []string
}

func parseWinArgs(args []string, lodctrArgs bool) (winArgs, error) {
	var a winArgs
	for i := 0; i < len(args); i++ {
		s := args[i]
		if len(s) < 2 || s[0] != '/' && s[0] != '-' || s == "--" {
			a.pos = append(a.pos, s)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(s, "-/"), ":")
		switch strings.ToLower(name) {
		case "?", "h", "help":
			return a, errHelp
		case "m":
			if !hasVal {
				if i+1 >= len(args) {
					return a, usagef("%s needs a manifest file", s)
				}
				i++
				val = args[i]
			}
			if val == "" {
				return a, usagef("%s needs a manifest file", s)
			}
			a.manifest = val
		case "v1":
			if !hasVal || val == "" {
				return a, usagef("%s needs a value: /v1:FILE (lodctr) or /v1:NAME (unlodctr)", s)
			}
			a.v1 = val
		case "u":
			if !lodctrArgs {
				return a, usagef("unknown option %s", s)
			}
			if !hasVal || val == "" {
				return a, usagef("%s needs users: /u:USER[,USER...] (names or uids)", s)
			}
			a.users = val
		case "exec", "arg":
			if !lodctrArgs {
				return a, usagef("unknown option %s", s)
			}
			if !hasVal || strings.EqualFold(name, "exec") && val == "" {
				return a, usagef("%s needs a value: /exec:PATH (the V1 provider's executable), /arg:ARG (one argument of it)", s)
			}
			if strings.EqualFold(name, "exec") {
				a.exec = val
			} else {
				a.args = append(a.args, val)
			}
		case "q":
			if !lodctrArgs {
				return a, usagef("unknown option %s", s)
			}
			a.query, a.queryFor = true, val
		case "v":
			a.verbose = true
		case "s", "r", "t", "e", "d", "l":
			return a, usagef("option %s (Windows' registry settings) is not supported: perfc registers V2 manifests (/m:), V1 .ini files and V1 providers from a JSON file (/v1:)", s)
		default:
			if strings.HasPrefix(s, "/") && strings.Contains(s[1:], "/") {
				a.pos = append(a.pos, s) // an absolute path, not an option
				continue
			}
			return a, usagef("unknown option %s", s)
		}
	}
	return a, nil
}

func runLodctr(ctx context.Context, c *command, e *env, args []string) error {
	a, err := parseWinArgs(args, true)
	if err == errHelp {
		c.writeHelp(e.stdout, nil)
		return nil
	}
	if err != nil {
		return err
	}
	hopts, err := hostOptions(e)
	if err != nil {
		return err
	}
	opts := lodctr.Options{StateDir: hopts.StateDir, Verbose: a.verbose, Builtin: host.BuiltinTitles, Reserved: host.BuiltinObjects()}
	if a.users != "" {
		if opts.Publishers, err = lodctr.ParsePublishers(a.users); err != nil {
			return usagef("%v", err)
		}
	}
	if a.query {
		return lodctr.List(opts, a.queryFor, e.stdout)
	}
	if a.v1 != "" {
		if a.manifest != "" || len(a.pos) > 0 || a.users != "" || a.exec != "" || len(a.args) > 0 {
			return usagef("/v1: takes no manifest, /u:, /exec: or /arg:")
		}
		return lodctr.InstallV1(opts, a.v1, e.stdout)
	}
	file := a.manifest
	switch {
	case file != "" && len(a.pos) > 1, file == "" && len(a.pos) > 2:
		return usagef("too many arguments")
	case file == "" && len(a.pos) == 0:
		return usagef("no manifest given")
	case file == "":
		file = a.pos[0] // "lodctr file.man" as well as "lodctr /m:file.man"
	}
	if a.manifest == "" && strings.EqualFold(fileExt(file), ".ini") {
		// lodctr FILE.ini: a V1 provider's names, as Windows registers a
		// performance DLL's.
		if len(a.pos) > 1 || a.users != "" {
			return usagef("lodctr FILE.ini takes /exec:PATH and /arg:ARG, no second file and no /u:")
		}
		if a.exec == "" && len(a.args) > 0 {
			return usagef("/arg: without /exec:")
		}
		return lodctr.InstallINI(opts, file, lodctr.V1Exec{Path: a.exec, Args: a.args}, e.stdout)
	}
	if a.exec != "" || len(a.args) > 0 {
		return usagef("/exec: and /arg: go with a V1 .ini file")
	}
	// The optional path after the manifest names, on Windows, the binary
	// holding its string resources; names come from the manifest here.
	return lodctr.Install(opts, file, e.stdout)
}

func runUnlodctr(ctx context.Context, c *command, e *env, args []string) error {
	a, err := parseWinArgs(args, false)
	if err == errHelp {
		c.writeHelp(e.stdout, nil)
		return nil
	}
	if err != nil {
		return err
	}
	hopts, err := hostOptions(e)
	if err != nil {
		return err
	}
	opts := lodctr.Options{StateDir: hopts.StateDir, Verbose: a.verbose}
	if a.v1 != "" {
		if a.manifest != "" || len(a.pos) > 0 {
			return usagef("/v1: takes no other argument")
		}
		return lodctr.UninstallV1(opts, a.v1, e.stdout)
	}
	switch {
	case a.manifest != "" && len(a.pos) > 0, len(a.pos) > 1:
		return usagef("too many arguments")
	case a.manifest != "":
		return lodctr.UninstallManifest(opts, a.manifest, e.stdout)
	case len(a.pos) == 0:
		return usagef("no manifest, provider GUID or provider name given")
	}
	key := a.pos[0]
	if ext := strings.ToLower(fileExt(key)); ext == ".man" || ext == ".xml" || ext == ".ini" {
		if _, err := os.Stat(key); err == nil {
			if ext == ".ini" {
				return lodctr.UninstallINI(opts, key, e.stdout)
			}
			return lodctr.UninstallManifest(opts, key, e.stdout)
		}
	}
	return lodctr.Uninstall(opts, key, e.stdout)
}

func fileExt(s string) string {
	i := strings.LastIndexByte(s, '.')
	if i < 0 || strings.ContainsAny(s[i:], `/\`) {
		return ""
	}
	return s[i:]
}

// lodctrNotes are the notes lodctr's and unlodctr's screens share.
const lodctrNotes = `A counter set whose GUID or name another provider registered is refused
(registering the same provider GUID again replaces it), and so are names
with control characters; unlodctr with a name several providers share
lists them: name one by its GUID.

A V1 .ini file ([info] drivername and symbolfile, [languages], [objects],
[text] with SYMBOL_LANGID_NAME and SYMBOL_LANGID_HELP keys) and its symbol
file beside it (#define SYMBOL OFFSET) are read as Windows' lodctr reads
them (perfini/INI.md): the objects and counters get title indexes after
Last Counter, index = First Counter + offset and help = First Help +
offset; the names are the English ones (009), or the first language's of
[languages] without English; every language's text is kept with the
registration. The provider is registered under its drivername and learns
First Counter and First Help from its environment (PERFC_FIRST_COUNTER,
PERFC_FIRST_HELP; collect/PROTOCOL.md). Registering the .ini again
replaces the registration. What is refused is named with file:line.

A V1 registration FILE is JSON (state.V1Registration): {"name": "...",
"exec": "/path/to/provider", "args": [...], "objects": [9000],
"names": [{"index": 9000, "name": "...", "help": "..."}], "testLevel": 1,
"timeoutMs": 2000}; a relative exec is taken from FILE's directory. The
provider speaks the protocol in collect/PROTOCOL.md. Its executable, and
every directory above it, must be owned by you or root and writable by
nobody else, or it is not run.

Registrations live in the state directory: $PERFC_STATE_DIR, else
/var/lib/perfc for root and $XDG_STATE_HOME/perfc (~/.local/state/perfc)
for other users. It must be owned by you or root and writable by nobody
else (see state/README.md).`
