#!/usr/bin/env bash
# Builds the container image (Dockerfile) with podman from the prebuilt
# dist/sqsq_linux_<arch> of this machine's architecture, and checks it
# without running a container (podman here builds images but cannot run
# them: crun's setrlimit is refused):
#   - its configuration: ENTRYPOINT /sqsq, CMD -addr 0.0.0.0:9324, a numeric
#     non-root USER, 9324/tcp exposed, a HEALTHCHECK running sqsq
#     -healthcheck;
#   - its binary is dist's, byte for byte: static (CGO_ENABLED=0), linux,
#     this architecture; /data belongs to the image's user (-data /data);
#   - the build context (.dockerignore) of the from-source target, whose
#     golang base cannot be pulled here: cmd/sqsq builds from it;
#   - as root, in a network namespace of its own (only a loopback, so
#     0.0.0.0:9324 is reachable from nowhere else): that binary, started as
#     the image's user with the image's command line, serves; the image's
#     health check command passes (exit 0); a request through a published
#     port (Host localhost:9324) passes the browser protections and one
#     naming a Compose service (Host sqsq:9324) is refused; SIGTERM stops it
#     with status 0, and the health check then fails (exit 1).
#
#   build/image-check.sh [OUT]   # OUT: where to copy the image's binary,
#                                # for SQSQ_BIN=OUT bash interop/clients.sh
#
# Needs podman and build/dist.sh's linux binary for this architecture.
set -euo pipefail
out=${1:-}
[ -z "$out" ] || out=$(realpath -m "$out") # before the cd
cd "$(dirname "$0")/.."

say() { echo "image: $*"; }
fail() { echo "image: FAIL: $*" >&2; exit 1; }
ms() { date +%s%3N; }
start=$(ms)

arch=$(go env GOARCH)
bin=dist/sqsq_linux_$arch
[ -x "$bin" ] || fail "no $bin: run build/dist.sh linux/$arch first"
command -v podman >/dev/null || fail "no podman"

tag=localhost/sqsq:check-$$
tmp=$(mktemp -d)
cid=""
cleanup() {
	[ -z "$cid" ] || podman rm "$cid" >/dev/null 2>&1 || true
	podman rmi "$tag" "$tag-context" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# --format docker: the OCI format has no HEALTHCHECK (podman drops it).
version=$("$bin" -version | cut -d' ' -f2)
build_start=$(ms)
podman build -q --layers=false --format docker --platform "linux/$arch" --build-arg "VERSION=$version" -t "$tag" . >/dev/null
say "built $tag from $bin ($version) in $(($(ms) - build_start)) ms; $(podman image inspect --format '{{.Size}}' "$tag") bytes"

# The configuration.
inspect() { podman image inspect --format "$1" "$tag"; }
expect() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
expect "Entrypoint" "$(inspect '{{json .Config.Entrypoint}}')" '["/sqsq"]'
expect "Cmd" "$(inspect '{{json .Config.Cmd}}')" '["-addr","0.0.0.0:9324"]'
expect "Os/Architecture" "$(inspect '{{.Os}}/{{.Architecture}}')" "linux/$arch"
user=$(inspect '{{.Config.User}}')
[[ $user =~ ^([0-9]+):([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -ne 0 ] && [ "${BASH_REMATCH[2]}" -ne 0 ] ||
	fail "User: got '$user', want a numeric non-root uid:gid"
uid=${BASH_REMATCH[1]} gid=${BASH_REMATCH[2]}
inspect '{{json .Config.ExposedPorts}}' | grep -q '"9324/tcp"' || fail "ExposedPorts: $(inspect '{{json .Config.ExposedPorts}}'), want 9324/tcp"
mapfile -t health < <(inspect '{{range .HealthCheck.Test}}{{println .}}{{end}}' | sed '/^$/d')
[ "${health[0]:-}" = CMD ] && [ "${health[1]:-}" = /sqsq ] && [ "${health[2]:-}" = -healthcheck ] ||
	fail "HealthCheck: got '$(inspect '{{json .HealthCheck}}')', want [\"CMD\",\"/sqsq\",\"-healthcheck\",...]"
inspect '{{.HealthCheck.Timeout}}' | grep -qv '^0s$' || fail "HealthCheck: no timeout"
say "config: ENTRYPOINT /sqsq, CMD -addr 0.0.0.0:9324, USER $uid:$gid, EXPOSE 9324/tcp, HEALTHCHECK ${health[*]:1} ($(inspect 'every {{.HealthCheck.Interval}}, timeout {{.HealthCheck.Timeout}}'))"

# The binary, out of a created (never started) container; and /data, the
# image user's, for -data /data on a volume (durable mode).
cid=$(podman create --no-healthcheck "$tag")
podman cp "$cid:/sqsq" "$tmp/sqsq"
podman export "$cid" | tar -tv --numeric-owner -f - 2>/dev/null | grep -E '^d.* (\./)?data/?$' | grep -q " $uid/$gid " ||
	fail "the image has no /data owned by $uid:$gid, for -data /data"
podman rm "$cid" >/dev/null
cid=""
expect "the image's /sqsq (sha256)" "$(sha256sum <"$tmp/sqsq")" "$(sha256sum <"$bin")"
settings=$(go version -m "$tmp/sqsq")
for want in "CGO_ENABLED=0" "GOOS=linux" "GOARCH=$arch" "-trimpath=true"; do
	grep -q -- "build[[:space:]]*$want\$" <<<"$settings" || fail "the image's /sqsq was not built with $want:"$'\n'"$settings"
done
say "binary: /sqsq is $bin, $(wc -c <"$tmp/sqsq") bytes, CGO_ENABLED=0 linux/$arch; /data is $uid:$gid's"

# The context of `docker build --target from-source`, as the builder sees it.
printf 'FROM scratch\nCOPY . /src\n' >"$tmp/Containerfile"
podman build -q --layers=false -f "$tmp/Containerfile" -t "$tag-context" . >/dev/null
cid=$(podman create --no-healthcheck "$tag-context" /none)
podman cp "$cid:/src" "$tmp/src"
podman rm "$cid" >/dev/null
cid=""
[ ! -e "$tmp/src/.git" ] && [ ! -e "$tmp/src/interop" ] && [ -z "$(find "$tmp/src/dist" -name 'sqsq_[dw]*' -print -quit)" ] ||
	fail "the build context holds .git, interop/ or a darwin or windows binary: see .dockerignore"
(cd "$tmp/src" && GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0 go build -trimpath -o "$tmp/from-source" ./cmd/sqsq) ||
	fail "cmd/sqsq does not build from the context of the from-source target: see .dockerignore"
say "context: $(du -sk "$tmp/src" | cut -f1) KiB (.dockerignore); go build ./cmd/sqsq works in it, as the from-source target's Go stage would"

# The binary as the container would run it, in a network namespace of its own.
netns_check() {
	local bin=$1 uid=$2 gid=$3 health=("${@:4}") pid code as_user
	as_user=(setpriv --reuid "$uid" --regid "$gid" --clear-groups)
	ip link set lo up
	"${as_user[@]}" "$bin" -addr 0.0.0.0:9324 >"$tmpdir/out" 2>"$tmpdir/err" &
	pid=$!
	for _ in $(seq 100); do
		grep -q "serving SQS on http://" "$tmpdir/out" && break
		kill -0 "$pid" 2>/dev/null || { cat "$tmpdir/err" >&2; echo "image: FAIL: sqsq exited" >&2; return 1; }
		sleep 0.1
	done
	grep -q "serving SQS on http://\[::\]:9324\|serving SQS on http://0.0.0.0:9324" "$tmpdir/out" ||
		{ echo "image: FAIL: not serving on 0.0.0.0:9324: $(cat "$tmpdir/out")" >&2; return 1; }
	[ "$(ps -o uid= -p "$pid" | tr -d ' ')" = "$uid" ] || { echo "image: FAIL: sqsq does not run as uid $uid" >&2; return 1; }
	"${as_user[@]}" "${health[@]:1}" || { echo "image: FAIL: the health check of a serving sqsq exited $?" >&2; return 1; }
	# status HOST: the HTTP status of GET /_sqsq/health sent with Host HOST.
	status() {
		exec 3<>/dev/tcp/127.0.0.1/9324
		printf 'GET /_sqsq/health HTTP/1.0\r\nHost: %s\r\n\r\n' "$1" >&3
		head -1 <&3 | cut -d' ' -f2
		exec 3<&-
	}
	[ "$(status localhost:9324)" = 200 ] || { echo "image: FAIL: Host localhost:9324 (a published port) is not served" >&2; return 1; }
	[ "$(status sqsq:9324)" = 403 ] || { echo "image: FAIL: Host sqsq:9324 is served without -allow-host sqsq" >&2; return 1; }
	kill -TERM "$pid"
	code=0
	wait "$pid" || code=$?
	[ "$code" -eq 0 ] || { cat "$tmpdir/err" >&2; echo "image: FAIL: sqsq exited $code on SIGTERM" >&2; return 1; }
	code=0
	"${as_user[@]}" "${health[@]:1}" 2>/dev/null || code=$?
	[ "$code" -eq 1 ] || { echo "image: FAIL: the health check of a stopped sqsq exited $code, want 1" >&2; return 1; }
	echo "image: run as uid $uid in a network namespace: served on 0.0.0.0:9324, health check 0 while serving and 1 once stopped, Host localhost:9324 served and sqsq:9324 refused, exit 0 on SIGTERM"
}
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && command -v setpriv >/dev/null && command -v ip >/dev/null; then
	chmod 0755 "$tmp" # the image's user reads nothing here, but runs the binary
	health[1]=$tmp/sqsq # the image's /sqsq
	tmpdir=$tmp unshare --net bash -c "set -euo pipefail; $(declare -f netns_check); netns_check $(printf '%q ' "$tmp/sqsq" "$uid" "$gid" "${health[@]}")"
else
	say "skipping the run as uid $uid: it needs root, unshare, setpriv and ip"
fi

if [ -n "$out" ]; then
	mkdir -p "$(dirname "$out")"
	cp "$tmp/sqsq" "$out"
	say "copied the image's binary to $out"
fi
say "PASS in $(($(ms) - start)) ms"
