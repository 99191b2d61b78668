package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

func versionCommand() command {
	return command{
		name:  "version",
		usage: "",
		short: "print perfc's version, commit and Go version",
		run:   runVersion,
	}
}

// The release build (dist/build.sh) stamps these at link time with
// -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
// They are link-time constants: nothing in the program assigns them.
// Unstamped, the version, commit and date come from the module and VCS
// information go build records (debug.ReadBuildInfo).
var (
	version string // the release version, e.g. 1.4.0
	commit  string // the commit's full hash
	date    string // the build date (RFC 3339, from SOURCE_DATE_EPOCH: the commit's time)
)

// runVersion prints "perfc VERSION" (the stamped release version, else
// the module version the binary was built as: a tag through go install
// module@version, a pseudo-version or "(devel)" from a clone), the commit
// and its date when the build recorded them, and the Go version and
// platform.
func runVersion(ctx context.Context, e *env, args []string) error {
	pos, err := helpOnly(e, "version", args)
	if err == errHelp {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("version takes no arguments")
	}
	_, err = fmt.Fprint(e.stdout, versionText())
	return err
}

// versionText is this binary's version text (formatVersion of its stamp
// and build information).
func versionText() string {
	bi, _ := debug.ReadBuildInfo()
	return formatVersion(buildStamp{version, commit, date}, bi)
}

// buildStamp is what the release build stamps.
type buildStamp struct{ version, commit, date string }

// formatVersion is the version's text: the stamp where set, else the
// build information bi (nil: none recorded).
func formatVersion(st buildStamp, bi *debug.BuildInfo) string {
	v, module := st.version, "github.com/perfcounters/perfcounters"
	var rev, at string
	modified := false
	var goVersion, goos, goarch string
	if bi != nil {
		module, goVersion = bi.Main.Path, bi.GoVersion
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			case "GOOS":
				goos = s.Value
			case "GOARCH":
				goarch = s.Value
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if st.commit != "" {
		rev, modified = st.commit, false
	}
	if st.date != "" {
		at = st.date
	}
	var b strings.Builder
	fmt.Fprintf(&b, "perfc %s (module %s)\n", v, module)
	if rev != "" {
		fmt.Fprintf(&b, "commit %s", rev)
		if at != "" {
			fmt.Fprintf(&b, " (%s)", at)
		}
		if modified {
			b.WriteString(" with local changes")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("commit unknown\n")
	}
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	b.WriteString(goVersion)
	if goos == "" {
		goos, goarch = runtime.GOOS, runtime.GOARCH
	}
	fmt.Fprintf(&b, " %s/%s\n", goos, goarch)
	return b.String()
}

// versionHelp is version's /? screen, beside its flags.
func versionHelp() helpScreen {
	return helpScreen{
		about: "Version prints perfc's version, the commit it was built from and its\ndate when known, and the Go version and platform. perfc --version and\nperfc -v print the same.",
		usage: []string{"perfc version", "perfc --version", "perfc -v"},
	}
}
