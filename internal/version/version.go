// Package version owns the one account of which perfc this is: the
// stamp a release build links in, else what the Go toolchain recorded
// of the module and its VCS state. Every place that reports a version
// (perfc version, perfc serve's /v1/host, the build_info metric of every
// /metrics profile, the OTLP resource's service.version) reads it here,
// so that a release build says the same thing everywhere.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// The release build (dist/build.sh) stamps these at link time with
// -ldflags "-X github.com/perfcounters/perfcounters/internal/version.version=...
// -X ...commit=... -X ...date=...". They are link-time constants: nothing
// in the program assigns them.
var (
	version string // the release version, e.g. 1.4.0
	commit  string // the commit's full hash
	date    string // the build date (RFC 3339, from SOURCE_DATE_EPOCH: the commit's time)
)

// Info is a build's version.
type Info struct {
	// Version is the stamped release version, else the module version
	// the binary was built as (a tag through go install module@version,
	// a pseudo-version), else "(devel)".
	Version string
	// Module is the main module's path.
	Module string
	// Commit is the commit's hash; "" when unknown.
	Commit string
	// Date is the commit's (a release's build) time, RFC 3339; "" when
	// unknown.
	Date string
	// Modified says the build had local changes to the commit.
	Modified bool
	// GoVersion, GOOS and GOARCH are the toolchain and platform.
	GoVersion, GOOS, GOARCH string
}

// Current is this binary's version.
func Current() Info {
	bi, _ := debug.ReadBuildInfo()
	return of(stamp{version, commit, date}, bi)
}

// stamp is what the release build stamps.
type stamp struct{ version, commit, date string }

// of is the version of a build with stamp st and build information bi
// (nil: none recorded): the stamp where set, else bi.
func of(st stamp, bi *debug.BuildInfo) Info {
	in := Info{Version: st.version, Module: "github.com/perfcounters/perfcounters"}
	if bi != nil {
		in.Module, in.GoVersion = bi.Main.Path, bi.GoVersion
		if in.Version == "" {
			in.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit = s.Value
			case "vcs.time":
				in.Date = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			case "GOOS":
				in.GOOS = s.Value
			case "GOARCH":
				in.GOARCH = s.Value
			}
		}
	}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	if st.commit != "" {
		in.Commit, in.Modified = st.commit, false
	}
	if st.date != "" {
		in.Date = st.date
	}
	if in.GoVersion == "" {
		in.GoVersion = runtime.Version()
	}
	if in.GOOS == "" {
		in.GOOS, in.GOARCH = runtime.GOOS, runtime.GOARCH
	}
	return in
}

// String is the version's text, as perfc version prints it: "perfc
// VERSION (module PATH)", the commit with its date and whether it had
// local changes ("commit unknown" without one), and the Go version and
// platform, each on a line.
func (in Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "perfc %s (module %s)\n", in.Version, in.Module)
	if in.Commit != "" {
		fmt.Fprintf(&b, "commit %s", in.Commit)
		if in.Date != "" {
			fmt.Fprintf(&b, " (%s)", in.Date)
		}
		if in.Modified {
			b.WriteString(" with local changes")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("commit unknown\n")
	}
	fmt.Fprintf(&b, "%s %s/%s\n", in.GoVersion, in.GOOS, in.GOARCH)
	return b.String()
}
