package main

import (
	"context"
	"fmt"

	"github.com/perfcounters/perfcounters/internal/version"
)

func versionCommand() command {
	return command{
		name:  "version",
		usage: "",
		short: "print perfc's version, commit and Go version",
		run:   runVersion,
		help: helpScreen{
			about: "Version prints perfc's version, the commit it was built from and its\ndate when known, and the Go version and platform. perfc --version and\nperfc -v print the same.",
			usage: []string{"perfc version", "perfc --version", "perfc -v"},
		},
	}
}

// runVersion prints "perfc VERSION" (the stamped release version, else
// the module version the binary was built as: a tag through go install
// module@version, a pseudo-version or "(devel)" from a clone), the commit
// and its date when the build recorded them, and the Go version and
// platform.
func runVersion(ctx context.Context, c *command, e *env, args []string) error {
	pos, err := parseFlags(c.flags(e.stdout), args)
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

// versionText is this binary's version text (internal/version: the
// release stamp, else the build information).
func versionText() string { return version.Current().String() }
