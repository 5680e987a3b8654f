# Sourced by the interop scripts: start cmd/sqsq on a free port of the real
# clock with a debug log, and stop it. The caller defines say and fail and
# sets tmp, a scratch folder. start_sqsq builds the server (or takes
# SQSQ_BIN, a binary such as the one taken out of the container image),
# starts it with "$@" as extra flags and sets pid and url; its standard
# output is in $tmp/out, its log in $tmp/err. stop_sqsq sends SIGTERM and
# requires a graceful exit, 0.

pid=""
url=""

start_sqsq() {
	local bin=$tmp/sqsq
	if [ -n "${SQSQ_BIN:-}" ]; then
		[ -f "$SQSQ_BIN" ] && [ -x "$SQSQ_BIN" ] || fail "SQSQ_BIN=$SQSQ_BIN is not an executable file"
		bin=$SQSQ_BIN
		say "sqsq: $bin ($("$bin" -version))"
	else
		go build -o "$bin" ./cmd/sqsq
	fi
	: >"$tmp/out" # exists before the background job opens it
	"$bin" -addr 127.0.0.1:0 -log-level debug "$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 100); do
		url=$(grep -o 'serving SQS on http://[^ ]*' "$tmp/out" | cut -d' ' -f4) && [ -n "$url" ] && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$tmp/err" >&2; pid=""; fail "sqsq exited"; }
		sleep 0.1
	done
	fail "sqsq did not print its address"
}

stop_sqsq() {
	[ -n "$pid" ] || return 0
	local p=$pid code=0
	pid=""
	kill -TERM "$p" 2>/dev/null || true
	wait "$p" || code=$?
	[ "$code" -eq 0 ] || { cat "$tmp/err" >&2; fail "sqsq exited with $code on SIGTERM"; }
}
