#!/usr/bin/env bash
# Cross-compiles cmd/sqsq into dist/: static binaries (CGO_ENABLED=0),
# stripped (-s -w), without local paths (-trimpath), each stamped with the
# version of `git describe --always --dirty` (else "dev"; SQSQ_VERSION
# overrides), which `sqsq -version` and GET /_sqsq/health report.
#
#   build/dist.sh                      # the six below
#   build/dist.sh linux/amd64 ...      # only these os/arch pairs
#
# It writes dist/sqsq_<os>_<arch> (.exe for windows) and dist/SHA256SUMS of
# the binaries present. The Dockerfile takes dist/sqsq_linux_<arch>.
set -euo pipefail
cd "$(dirname "$0")/.."

platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
version=${SQSQ_VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}

mkdir -p dist
start=$(date +%s%3N)
for p in "${platforms[@]}"; do
	os=${p%/*} arch=${p#*/}
	[ -n "$os" ] && [ -n "$arch" ] && [ "$os/$arch" = "$p" ] || { echo "dist: want os/arch, as linux/amd64, not $p" >&2; exit 2; }
	out=dist/sqsq_${os}_${arch}
	[ "$os" != windows ] || out=$out.exe
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$out" ./cmd/sqsq
	echo "dist: $out ($(($(wc -c <"$out") / 1024)) KiB)"
done
(cd dist && rm -f SHA256SUMS && sha256sum sqsq_* >SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS)
echo "dist: sqsq $version for ${platforms[*]} in $(($(date +%s%3N) - start)) ms"
