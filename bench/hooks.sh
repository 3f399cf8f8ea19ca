#!/usr/bin/env bash
# bench/hooks.sh: measure webhook delivery end to end (see bench/hooks).
#
# Builds taskd and the webhook bench, starts `taskd serve --dev` on a free
# loopback port with a fresh data directory (SQLite), or on the PostgreSQL
# database named by TASKD_BENCH_POSTGRES, then runs:
#   burst: 10 webhooks, 2,000 tasks posted by 8 clients
#   rate:  1 webhook, 500 changes/s for 10 s
#   dead:  the burst with 10 more webhooks whose destinations hang (5) or
#          fail (5), to compare with the plain burst
#
# Environment: TASKD_BENCH_POSTGRES (postgres:// URL; empty: SQLite),
# CHANGES (2000), RATE (500), DURATION (10s), WEBHOOKS (10), SCENARIOS ("burst rate
# dead": which to run, in order).
# PROFILE=FILE writes a CPU profile of taskd over the first PROFILE_SECONDS
# (8) of the scenarios to FILE (`go tool pprof FILE`).
# BACKLOG=N runs only the backlog scenario instead: N changes held for one
# webhook while it is disabled, then drained (peak RSS).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/taskd-hooks.XXXXXX")
pid=""
cleanup() {
	[[ -n $pid ]] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
	rm -rf "$tmp"
}
trap cleanup EXIT

(cd "$root" && go build -o "$tmp/taskd" ./cmd/taskd && go build -o "$tmp/hooks" ./bench/hooks)
db=()
if [[ -n ${TASKD_BENCH_POSTGRES:-} ]]; then db=(--db "$TASKD_BENCH_POSTGRES"); fi
slug="hooks-$(date +%s)"
key=$("$tmp/taskd" account create --data "$tmp/data" "${db[@]}" --slug "$slug" --owner-email "$slug@example.com" \
	--owner-password "bench-password" | sed -n 's/.*"api_key":"\([0-9a-f]*\)".*/\1/p')
"$tmp/taskd" serve --dev --addr 127.0.0.1:0 --data "$tmp/data" "${db[@]}" --log-level warn \
	--api-rate-limit 0 --api-rate-limit-address 0 ${PROFILE:+--debug-addr 127.0.0.1:6061} >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
for _ in $(seq 1 100); do
	base=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\).*/\1/p' "$tmp/serve.out")
	[[ -n $base ]] && break
	sleep 0.1
done
[[ -n ${base:-} ]] || { cat "$tmp/serve.err" >&2; exit 1; }
echo "taskd on $base ($([[ ${#db[@]} -gt 0 ]] && echo postgres || echo sqlite))"
if [[ -n ${BACKLOG:-} ]]; then
	"$tmp/hooks" --url "$base/a/$slug" --key "$key" --pid "$pid" --scenario backlog \
		--webhooks 1 --changes "$BACKLOG" --clients 8 --wait 10m
	exit
fi
if [[ -n ${PROFILE:-} ]]; then
	curl -fsS -o "$PROFILE" "http://127.0.0.1:6061/debug/pprof/profile?seconds=${PROFILE_SECONDS:-8}" &
fi
run() { "$tmp/hooks" --url "$base/a/$slug" --key "$key" --pid "$pid" "$@"; }
for s in ${SCENARIOS:-burst rate dead}; do
	case $s in
	burst) run --scenario burst --webhooks "${WEBHOOKS:-10}" --changes "${CHANGES:-2000}" --clients 8 ;;
	rate) run --scenario rate --webhooks 1 --rate "${RATE:-500}" --duration "${DURATION:-10s}" ;;
	dead) run --scenario burst --webhooks "${WEBHOOKS:-10}" --changes "${CHANGES:-2000}" --clients 8 --dead 10 ;;
	*) echo "unknown scenario $s" >&2; exit 2 ;;
	esac
done
