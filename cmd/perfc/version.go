package main

import (
	"context"
	"fmt"
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

// runVersion prints "perfc VERSION" (the module version the binary was
// built as: a tag through go install module@version, "(devel)" from a
// clone), the commit and its time when the build recorded them (go build
// in a git checkout), and the Go version and platform.
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

func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "perfc (unknown version: built without module information)\n"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at string
	modified := false
	var goos, goarch string
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
	var b strings.Builder
	fmt.Fprintf(&b, "perfc %s (module %s)\n", v, bi.Main.Path)
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
	fmt.Fprintf(&b, "%s", bi.GoVersion)
	if goos != "" {
		fmt.Fprintf(&b, " %s/%s", goos, goarch)
	}
	b.WriteString("\n")
	return b.String()
}

// versionHelp is version's /? screen, beside its flags.
func versionHelp() helpScreen {
	return helpScreen{
		about: "Version prints perfc's module version, the commit it was built from\nwhen known, and the Go version.",
		usage: []string{"perfc version"},
	}
}
