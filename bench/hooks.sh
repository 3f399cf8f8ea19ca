#!/usr/bin/env bash
# bench/hooks.sh: measure webhook delivery end to end (see bench/hooks).
#
# Builds taskd and the webhook bench, starts `taskd serve --dev` on a free
# loopback port with a fresh data directory (SQLite), or on a fresh database
# made for the run on the PostgreSQL server TASKD_BENCH_POSTGRES names (and
# dropped after it), then runs:
#   burst: 10 webhooks, 2,000 tasks posted by 8 clients
#   rate:  1 webhook, 500 changes/s for 10 s
#   dead:  the burst with 10 more webhooks whose destinations hang (5) or
#          fail (5), to compare with the plain burst
#
# Environment: TASKD_BENCH_POSTGRES (postgres:// URL; empty: SQLite),
# CHANGES (2000), RATE (500), DURATION (10s), WARMUP (1s), WEBHOOKS (10), DEAD (10), SCENARIOS ("burst rate
# dead": which to run, in order).
# REPLICAS=N (PostgreSQL only) starts N servers on the database; the
# changes go to them in turn, CPU is their sum and RSS the largest.
# PROFILE=FILE writes a CPU profile of (the first) taskd over the first PROFILE_SECONDS
# (8) of the scenarios to FILE (`go tool pprof FILE`).
# BACKLOG=N runs only the backlog scenario instead: N changes held for one
# webhook while it is disabled, then drained (peak RSS).
# JSON=1 prints each scenario's result as one JSON object (bench/ab.sh reads
# them); TASKD_BIN measures that taskd binary instead of building this tree's.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_root=$root
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/taskd-hooks.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	drop_database
	rm -rf "$tmp"
}
trap cleanup EXIT

build_taskd "$tmp"
(cd "$root" && go build -o "$tmp/hooks" ./bench/hooks)
db=()
if [[ -n ${TASKD_BENCH_POSTGRES:-} ]]; then
	fresh_database "$TASKD_BENCH_POSTGRES"
	db=(--db "$bench_url")
fi
replicas=${REPLICAS:-1}
if ((replicas > 1)) && [[ ${#db[@]} -eq 0 ]]; then echo "REPLICAS needs TASKD_BENCH_POSTGRES" >&2; exit 2; fi
slug="hooks-$(date +%s)"
key=$("$tmp/taskd" account create --data "$tmp/data" "${db[@]}" --slug "$slug" --owner-email "$slug@example.com" \
	--owner-password "bench-password" | sed -n 's/.*"api_key":"\([0-9a-f]*\)".*/\1/p')
# Replicas share the database and the data directory (its master key).
urls=""
for i in $(seq 1 "$replicas"); do
	debug=()
	if [[ -n ${PROFILE:-} && $i == 1 ]]; then debug=(--debug-addr 127.0.0.1:6061); fi
	"$tmp/taskd" serve --dev --addr 127.0.0.1:0 --data "$tmp/data" "${db[@]}" --log-level warn \
		--api-rate-limit 0 --api-rate-limit-address 0 "${debug[@]}" >"$tmp/serve$i.out" 2>"$tmp/serve$i.err" &
	pids+=($!)
	base=""
	for _ in $(seq 1 100); do
		base=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\).*/\1/p' "$tmp/serve$i.out")
		[[ -n $base ]] && break
		sleep 0.1
	done
	[[ -n $base ]] || { cat "$tmp/serve$i.err" >&2; exit 1; }
	urls+="${urls:+,}$base/a/$slug"
done
pid=$(IFS=,; echo "${pids[*]}")
echo "taskd on $urls ($([[ ${#db[@]} -gt 0 ]] && echo postgres || echo sqlite))" >&2
if [[ -n ${BACKLOG:-} ]]; then
	"$tmp/hooks" --url "$urls" --key "$key" --pid "$pid" --scenario backlog \
		--webhooks 1 --changes "$BACKLOG" --clients 8 --wait 10m
	exit
fi
if [[ -n ${PROFILE:-} ]]; then
	curl -fsS -o "$PROFILE" "http://127.0.0.1:6061/debug/pprof/profile?seconds=${PROFILE_SECONDS:-8}" &
fi
json=()
if [[ ${JSON:-} == 1 ]]; then json=(--json); fi
run() { "$tmp/hooks" --url "$urls" --key "$key" --pid "$pid" "${json[@]}" "$@"; }
for s in ${SCENARIOS:-burst rate dead}; do
	case $s in
	burst) run --scenario burst --webhooks "${WEBHOOKS:-10}" --changes "${CHANGES:-2000}" --clients 8 ;;
	rate) run --scenario rate --webhooks 1 --rate "${RATE:-500}" --duration "${DURATION:-10s}" --warmup "${WARMUP:-1s}" ;;
	dead) run --scenario burst --webhooks "${WEBHOOKS:-10}" --changes "${CHANGES:-2000}" --clients 8 --dead "${DEAD:-10}" ;;
	*) echo "unknown scenario $s" >&2; exit 2 ;;
	esac
done
