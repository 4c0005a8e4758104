#!/usr/bin/env bash
# Checks that mcpctl still releases: the Windows and macOS code paths vet
# (which type-checks every package and its tests as built there) and a few
# of their test binaries link; the GoReleaser configuration passes
# `goreleaser check`; a snapshot build writes the six binaries of
# .goreleaser.yaml into the git-ignored dist/; and the linux/amd64 one's
# `mcpctl version` names the commit it was built from. Part of
# scripts/test.sh.
#
#   bash scripts/release-check.sh                       # with GoReleaser
#   RELEASE_BUILDER=go bash scripts/release-check.sh    # plain go build
#
# GoReleaser runs from the Go module proxy (`go run`, nothing installed);
# its first run downloads and builds it, later ones reuse the build cache.
# RELEASE_BUILDER=go builds the same six targets with the same -ldflags
# by a plain `go build` loop, for a machine where building GoReleaser
# does not fit.
set -euo pipefail
cd "$(dirname "$0")/.."

# GOFLAGS as given, for GoReleaser's own build: -trimpath (below) would
# make it a different build from the one already in the build cache.
goreleaser=(env GOFLAGS="${GOFLAGS:-}" go run github.com/goreleaser/goreleaser/v2@v2.15.1)
builder=${RELEASE_BUILDER:-goreleaser}
# The six targets of .goreleaser.yaml, as GOOS/GOARCH.
targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)

# The release is built with -trimpath (.goreleaser.yaml); vetting with it
# too lets the windows/amd64 and darwin/arm64 builds reuse what vet
# compiled for those platforms.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"

step() {
  echo "release-check: $1 took $(($(date +%s) - $2))s" >&2
}

start=$(date +%s)
t=$start
for target in windows/amd64 darwin/arm64; do
  GOOS=${target%/*} GOARCH=${target#*/} go vet ./...
done
# The packages with files of their own per platform: their tests link.
for pkg in ./internal/filelock ./config ./transport; do
  GOOS=windows GOARCH=amd64 go test -c -o /dev/null "$pkg"
  GOOS=darwin GOARCH=arm64 go test -c -o /dev/null "$pkg"
done
step "vet and test builds for windows and darwin" "$t"

commit=$(git rev-parse HEAD)
t=$(date +%s)
case "$builder" in
goreleaser)
  "${goreleaser[@]}" check
  "${goreleaser[@]}" build --snapshot --clean
  ;;
go)
  # What .goreleaser.yaml's build does, without its archives: keep the
  # flags in step with it.
  rm -rf dist
  date=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ)
  pkg=github.com/mcpctl/mcpctl/cmd
  ldflags="-s -w -X $pkg.Version=v0.0.0-snapshot+$(git rev-parse --short HEAD) -X $pkg.Commit=$commit -X $pkg.Date=$date"
  for target in "${targets[@]}"; do
    os=${target%/*} arch=${target#*/}
    ext=
    [ "$os" = windows ] && ext=.exe
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "dist/mcpctl_${os}_${arch}/mcpctl$ext" .
  done
  ;;
*)
  echo "release-check: RELEASE_BUILDER is goreleaser or go, not \"$builder\"" >&2
  exit 2
  ;;
esac
step "$builder build of ${#targets[@]} targets" "$t"

# GoReleaser names its folders with the target's microarchitecture level
# (mcpctl_linux_amd64_v1, mcpctl_darwin_arm64_v8.0), hence the globs.
missing=0
for target in "${targets[@]}"; do
  os=${target%/*} arch=${target#*/}
  ext=
  [ "$os" = windows ] && ext=.exe
  found=$(ls -d dist/mcpctl_"${os}_${arch}"*/mcpctl"$ext" 2>/dev/null | head -n1 || true)
  if [ -z "$found" ] || [ ! -s "$found" ]; then
    echo "release-check: no $target binary under dist/" >&2
    missing=1
  fi
done
[ "$missing" -eq 0 ] || exit 1

bin=$(ls -d dist/mcpctl_linux_amd64*/mcpctl | head -n1)
line=$("$bin" version)
got=$("$bin" version -o json --jq .commit)
if [ "$got" != "$commit" ] || [[ "$line" != *"commit ${commit:0:12}"* ]]; then
  echo "release-check: $bin version does not name commit $commit:" >&2
  echo "  $line" >&2
  echo "  -o json --jq .commit: $got" >&2
  exit 1
fi
echo "release-check: $line" >&2
step "the release check" "$start"
