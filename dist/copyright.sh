#!/usr/bin/env bash
# dist/copyright.sh: the Debian package's copyright file (machine-readable
# format 1.0) on stdout: perfc's own notice, then the licence of Go and of
# every module compiled into the perfc binary (go list -deps of
# ./cmd/perfc, default build), each licence file's text as its module
# ships it. A module without a licence file fails the script: a binary
# must not ship code whose terms are unknown.
set -euo pipefail
cd "$(dirname "$0")/.."
# indent turns a licence text into a field's continuation lines.
indent() { sed -e 's/[[:space:]]*$//' -e 's/^$/./' -e 's/^/ /'; }
cat <<'HEAD'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: perfc
Upstream-Contact: perfcounters <perfc@localhost>
Source: https://github.com/perfcounters/perfcounters

Files: *
Copyright: the perfcounters authors
License: perfcounters
 The perfcounters repository states no licence of its own: no right to
 copy or change perfc's own code is granted by this package beyond what the
 law allows. The code of others compiled into the binary is under the
 licences below, which hold for that code.

HEAD
goroot=$(GOFLAGS= go env GOROOT)
printf 'Files: (the Go standard library and runtime, %s)\nCopyright: The Go Authors\nLicense: BSD-3-Clause\n' "$(GOFLAGS= go env GOVERSION)"
indent <"$goroot/LICENSE"
echo
GOFLAGS= CGO_ENABLED=0 go list -deps -f '{{with .Module}}{{if .Version}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' ./cmd/perfc |
  sort -u | while read -r path version dir; do
    lic=$(find "$dir" -maxdepth 1 -type f \( -iname 'LICENSE*' -o -iname 'LICENCE*' -o -iname 'COPYING*' \) | sort | head -n 1)
    if [ -z "$lic" ]; then
      echo "dist/copyright.sh: module $path $version has no licence file in $dir" >&2
      exit 1
    fi
    printf 'Files: (Go module %s %s)\nCopyright: see the licence text\nLicense: %s\n' "$path" "$version" "$(basename "$lic")"
    indent <"$lic"
    echo
  done
