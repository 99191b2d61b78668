#!/usr/bin/env bash
# dist/build.sh: perfc's release binaries, static and reproducible.
#
#   dist/build.sh [ARCH...]        (default: amd64 arm64)
#
# For each architecture, dist/out/linux-ARCH/perfc, built:
#   - static: CGO_ENABLED=0 (perfc needs no cgo; the binary runs on any
#     Linux of that architecture, with no libc of its own version);
#   - reproducible: -trimpath (no build paths), -buildvcs=false and
#     -buildid= (nothing of the checkout but what is stamped), the date from
#     SOURCE_DATE_EPOCH (default: the commit's time), so that two builds of
#     one commit with one Go toolchain are the same bytes (.ci/run checks);
#   - stamped: -X internal/version's version, commit and date, which perfc
#     version, perfc --version and perfc -v print, and perfc serve reports
#     (/v1/host, every profile's build_info metric, OTLP service.version).
#
# Environment: VERSION (default: git describe of the last v* tag, without
# the v, else 0.0.0~git<commit date>.<short commit>), COMMIT (default: git
# rev-parse HEAD), SOURCE_DATE_EPOCH, OUT (default: dist/out).
set -euo pipefail
cd "$(dirname "$0")/.."

archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(amd64 arm64)

commit=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
date=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
if [ -z "${VERSION:-}" ]; then
  if tag=$(git describe --tags --match 'v[0-9]*' --abbrev=0 2>/dev/null) && [ "$(git rev-list -n 1 "$tag")" = "$commit" ]; then
    VERSION=${tag#v}
  else
    VERSION="0.0.0~git$(date -u -d "@$epoch" +%Y%m%d.%H%M%S).${commit:0:12}"
  fi
fi
out=${OUT:-dist/out}

v=github.com/perfcounters/perfcounters/internal/version
ldflags="-s -w -buildid= -X $v.version=$VERSION -X $v.commit=$commit -X $v.date=$date"
for arch in "${archs[@]}"; do
  mkdir -p "$out/linux-$arch"
  CGO_ENABLED=0 GOOS=linux GOARCH="$arch" GOFLAGS= \
    go build -trimpath -buildvcs=false -ldflags="$ldflags" -o "$out/linux-$arch/perfc" ./cmd/perfc
  echo "$out/linux-$arch/perfc $VERSION $commit $date"
done
# What dist/deb.sh and anyone packaging the build reads back.
printf 'VERSION=%s\nCOMMIT=%s\nDATE=%s\nSOURCE_DATE_EPOCH=%s\n' "$VERSION" "$commit" "$date" "$epoch" >"$out/BUILDINFO"
