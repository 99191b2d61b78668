#!/usr/bin/env bash
# dist/deb.sh [ARCH...]: the Debian packages of perfc (default: amd64
# arm64), dist/out/perfc_VERSION_ARCH.deb, from the release binaries of
# dist/build.sh (built first when missing), the man pages of dist/man,
# the completion scripts the binary writes, docs and the systemd units.
# The package is made by nfpm (github.com/goreleaser/nfpm, the Go packager
# GoReleaser uses), run from the Go module proxy at a pinned version, so
# the repository's go.mod does not carry it.
set -euo pipefail
cd "$(dirname "$0")/.."
NFPM_VERSION=v2.45.2
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(amd64 arm64)
out=${OUT:-dist/out}
for arch in "${archs[@]}"; do
  [ -x "$out/linux-$arch/perfc" ] || OUT="$out" dist/build.sh "$arch"
done
# shellcheck disable=SC1091
. "$out/BUILDINFO"
export VERSION DATE SOURCE_DATE_EPOCH COMMIT # nfpm dates the package by SOURCE_DATE_EPOCH
# The completion scripts, from a binary of this machine (they hold no
# architecture's details).
host=$(mktemp -d)
trap 'rm -rf "$host"' EXIT
GOFLAGS= go build -trimpath -buildvcs=false -o "$host/perfc" ./cmd/perfc
for arch in "${archs[@]}"; do
  STAGE=dist/out/stage # where dist/deb/nfpm.yaml reads them
  export STAGE ARCH=$arch
  rm -rf "$STAGE"
  install -D -m 0755 "$out/linux-$arch/perfc" "$STAGE/usr/bin/perfc"
  for page in dist/man/*.[0-9]; do
    sec=${page##*.}
    install -d "$STAGE/usr/share/man/man$sec"
    gzip -9n <"$page" >"$STAGE/usr/share/man/man$sec/$(basename "$page").gz"
  done
  install -d "$STAGE/usr/share/bash-completion/completions" "$STAGE/usr/share/zsh/vendor-completions" "$STAGE/usr/share/fish/vendor_completions.d"
  "$host/perfc" completion bash >"$STAGE/usr/share/bash-completion/completions/perfc"
  "$host/perfc" completion zsh >"$STAGE/usr/share/zsh/vendor-completions/_perfc"
  "$host/perfc" completion fish >"$STAGE/usr/share/fish/vendor_completions.d/perfc.fish"
  install -d "$STAGE/usr/share/doc/perfc"
  install -m 0644 README.md docs/logman.md docs/serve.md docs/typeperf.md docs/systemd.md "$STAGE/usr/share/doc/perfc/"
  # copyright: perfc's notice and the licences of the code compiled in;
  # changelog.Debian: this build (the history is the repository's log).
  dist/copyright.sh >"$STAGE/usr/share/doc/perfc/copyright"
  {
    printf 'perfc (%s) unstable; urgency=medium\n\n' "$VERSION"
    printf '  * Built from commit %s of %s.\n' "${COMMIT:-unknown}" "https://github.com/perfcounters/perfcounters"
    printf '  * The changes are the repository'"'"'s history: git log up to that commit.\n\n'
    printf ' -- perfcounters <perfc@localhost>  %s\n' "$(date -u -d "@$SOURCE_DATE_EPOCH" -R)"
  } | gzip -9n >"$STAGE/usr/share/doc/perfc/changelog.Debian.gz"
  install -D -m 0644 dist/systemd/perfc-logman.service "$STAGE/usr/lib/systemd/system/perfc-logman.service"
  install -D -m 0644 dist/systemd/perfc-serve.service "$STAGE/usr/lib/systemd/system/perfc-serve.service"
  install -d "$STAGE/usr/lib/systemd/user"
  sed 's#/usr/local/bin/perfc#/usr/bin/perfc#' dist/systemd/user/perfc-logman.service >"$STAGE/usr/lib/systemd/user/perfc-logman.service"
  install -D -m 0644 dist/deb/perfc.sysusers "$STAGE/usr/lib/sysusers.d/perfc.conf"
  find "$STAGE" -exec touch -h -d "$DATE" {} +
  GOFLAGS= go run "github.com/goreleaser/nfpm/v2/cmd/nfpm@$NFPM_VERSION" package \
    --config dist/deb/nfpm.yaml --packager deb --target "$out/"
done
ls -l "$out"/perfc_*.deb
