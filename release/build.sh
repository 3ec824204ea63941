#!/usr/bin/env bash
# Builds a GPUScheduler release into OUT (default dist/release):
#   gpusched-VERSION-linux-{amd64,arm64}.tar.gz        gpusched (the CLI) and
#       gpusched-server (control plane, node agent, admin commands, simulator)
#   gpusched-agent-VERSION-{linux,darwin}-{amd64,arm64}.tar.gz   the client
#       agent, and the CLI gpusched for laptops
# gpusched is the client alone (static, no cgo: starts in a few ms); its
# server commands (serve, node, migrate, user, token, sim) run the
# gpusched-server installed beside it.
#   SHA256SUMS and, with GPUSCHED_SIGNING_KEY (an SSH private key file),
#   SHA256SUMS.sig: `ssh-keygen -Y sign -n file`. release/verify.sh checks both.
# gpusched-server reads GPUs through NVML, which needs cgo: linux/amd64 is built with
# the host's gcc (on amd64), linux/arm64 with aarch64-linux-gnu-gcc when it is
# installed, otherwise without cgo (no NVML: `gpusched-server version` says so; such
# a build runs the control plane and --fake-gpus nodes only).
# Environment: VERSION, COMMIT, BUILD_DATE (default from git), OUT,
# RELEASE_PLATFORMS ("host" or a list like "linux/amd64 darwin/arm64": build
# only those), GPUSCHED_SIGNING_KEY.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
BUILD_DATE=${BUILD_DATE:-$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)}
OUT=${OUT:-dist/release}
SERVER_PLATFORMS="linux/amd64 linux/arm64"
AGENT_PLATFORMS="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64"
host="$(go env GOOS)/$(go env GOARCH)"
want=${RELEASE_PLATFORMS:-all}
[ "$want" = host ] && want=$host
export CGO_CFLAGS=${CGO_CFLAGS:--O2 -g -Wno-deprecated-declarations}
LDFLAGS="-s -w -X main.version=$VERSION -X main.commit=$COMMIT -X main.buildDate=$BUILD_DATE"

selected() { [ "$want" = all ] || [[ " $want " == *" $1 "* ]]; }

rm -rf "$OUT" && mkdir -p "$OUT"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# pack DIR NAME: a reproducible tarball of stage/NAME into OUT.
pack() {
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    -C "$stage" -cf - "$1" | gzip -n -9 > "$OUT/$1.tar.gz"
}

# cgo_for OS/ARCH: the C compiler for a cgo build there, empty for none.
cgo_for() {
  case "$1" in
    "$host") command -v "${CC:-gcc}" >/dev/null 2>&1 && echo "${CC:-gcc}" ;;
    linux/arm64) command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 && echo aarch64-linux-gnu-gcc ;;
    linux/amd64) command -v x86_64-linux-gnu-gcc >/dev/null 2>&1 && echo x86_64-linux-gnu-gcc ;;
  esac
  return 0
}

# glibc_floor BINARY: the newest GLIBC_x.y symbol version it needs.
glibc_floor() {
  if command -v objdump >/dev/null 2>&1; then
    objdump -T "$1" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 | sed 's/GLIBC_//'
  fi
}

for p in $SERVER_PLATFORMS; do
  selected "$p" || continue
  os=${p%/*} arch=${p#*/} name="gpusched-$VERSION-$os-$arch"
  mkdir -p "$stage/$name/deploy"
  cc=$(cgo_for "$p")
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$stage/$name/gpusched" ./cmd/gpusched
  if [ -n "$cc" ]; then
    echo "release: gpusched-server $p (cgo with $cc: NVML compiled in)"
    CGO_ENABLED=1 CC=$cc GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$stage/$name/gpusched-server" ./cmd/gpusched-server
    floor=$(glibc_floor "$stage/$name/gpusched-server")
    nvml="yes; needs glibc ${floor:-?} or newer"
  else
    echo "release: gpusched-server $p (no C compiler for $p: built without cgo, NVML NOT compiled in)"
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$stage/$name/gpusched-server" ./cmd/gpusched-server
    nvml="no (static binary without cgo: control plane and --fake-gpus only)"
  fi
  cp README.md "$stage/$name/"
  cp -r deploy/systemd deploy/caddy deploy/nginx "$stage/$name/deploy/" 2>/dev/null || true
  printf 'gpusched %s %s/%s\ncommit: %s\nbuilt: %s\nbinaries: gpusched (CLI, static), gpusched-server (server, node agent, admin; the CLI runs it for those commands)\nnvml: %s\n' "$VERSION" "$os" "$arch" "$COMMIT" "$BUILD_DATE" "$nvml" > "$stage/$name/BUILD"
  pack "$name"
done

for p in $AGENT_PLATFORMS; do
  selected "$p" || continue
  os=${p%/*} arch=${p#*/} name="gpusched-agent-$VERSION-$os-$arch"
  echo "release: gpusched-agent $p"
  mkdir -p "$stage/$name"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$stage/$name/gpusched-agent" ./cmd/gpusched-agent
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$stage/$name/gpusched" ./cmd/gpusched
  if [ "$os" = darwin ]; then cp deploy/io.gpuscheduler.agent.plist "$stage/$name/"; else cp deploy/gpusched-agent.service "$stage/$name/"; fi
  pack "$name"
done

ls "$OUT"/*.tar.gz >/dev/null 2>&1 || { echo "release: nothing selected by RELEASE_PLATFORMS=$want" >&2; exit 1; }
(cd "$OUT" && sha256sum -- *.tar.gz > SHA256SUMS)
if [ -n "${GPUSCHED_SIGNING_KEY:-}" ]; then
  ssh-keygen -q -Y sign -f "$GPUSCHED_SIGNING_KEY" -n file "$OUT/SHA256SUMS"
  echo "release: signed SHA256SUMS -> SHA256SUMS.sig"
else
  echo "release: UNSIGNED (set GPUSCHED_SIGNING_KEY to an SSH private key file to sign SHA256SUMS)"
fi
cat "$OUT/SHA256SUMS"
