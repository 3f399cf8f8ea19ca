#!/usr/bin/env bash
# scripts/cpu-per-request.sh [ROOT]: CPU time per request of taskd and of the
# load generator, for the ceiling and get_tasks scenarios of bench/run.sh.
#
# Builds taskd and bench/load from ROOT (default: this checkout; give another
# worktree to measure a baseline), seeds the project bench/run.sh seeds
# (SQLite, 175 tasks), runs each scenario with 16 clients and reads, over 5 s
# in its middle, the CPU ticks of taskd and of the load process from /proc
# (utime+stime: the kernel's share of sending the answers included). CPU per
# request depends much less than rps on what else runs on the machine.
# With PROFILE=FILE it also writes a 5 s CPU profile of taskd during get_tasks.
set -euo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
DURATION=${DURATION:-9s}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/taskd-cpu.XXXXXX")
pid=""
trap '[[ -z $pid ]] || kill "$pid"; rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/taskd" ./cmd/taskd && go build -o "$tmp/load" ./bench/load)
"$tmp/taskd" serve --dev --log-level info --addr 127.0.0.1:0 --debug-addr 127.0.0.1:0 --data "$tmp/data" \
	--api-rate-limit 1000000000 --api-rate-limit-address 1000000000 >"$tmp/out" 2>"$tmp/err" &
pid=$!
base=""
for _ in $(seq 100); do
	base=$(sed -n 's|^taskd listening on \(http://127\.0\.0\.1:[0-9]*\) .*|\1|p' "$tmp/out")
	[[ -n $base ]] && break
	sleep 0.1
done
[[ -n $base ]] || { echo "taskd did not start" >&2; exit 1; }
sleep 0.5
debug=$(grep -ho 'http://127.0.0.1:[0-9]*/debug/pprof/' "$tmp/out" "$tmp/err" | head -1)
out=$("$tmp/taskd" account create --data "$tmp/data" --slug bench --name Bench --owner-email b@example.com --owner-password benchpassword1)
key=$(sed -n 's/.*"api_key":"\([0-9a-zA-Z]*\)".*/\1/p' <<<"$out")
account="$base/a/bench"
api() { curl -sS "$account/api/admin/v2/?$1&hash=$(printf '%s' "$1$key" | md5sum | cut -d' ' -f1)"; }
new_id() { api "$1" | sed -n 's/^{"status":"ok","data":{"id":"\([0-9]*\)".*/\1/p'; }
project=$(new_id "action=post_project&title=Bench+read")
for i in $(seq 100); do
	task=$(new_id "action=post_task&id_project=$project&title=Task+$i&priority=$((i % 11))")
	if ((i % 4 == 0)); then
		for j in 1 2 3; do new_id "action=post_task&id_project=$project&id_parent=$task&title=Subtask+$i.$j" >/dev/null; done
	fi
done
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for scenario in ceiling get_tasks; do
	"$tmp/load" --url "$account" --key "$key" --scenario "$scenario" --project "$project" \
		--clients 16 --duration "$DURATION" --warmup 1s >"$tmp/result" &
	load=$!
	sleep 3
	t0=$(ticks "$pid") l0=$(ticks "$load") s0=$(date +%s.%N)
	if [[ $scenario == get_tasks && -n ${PROFILE:-} ]]; then
		curl -sS -o "$PROFILE" "${debug}profile?seconds=5"
	else
		sleep 5
	fi
	t1=$(ticks "$pid") l1=$(ticks "$load") s1=$(date +%s.%N)
	wait "$load"
	rps=$(grep -o 'rps=[0-9.]*' "$tmp/result" | cut -d= -f2)
	awk -v s="$scenario" -v t=$((t1 - t0)) -v l=$((l1 - l0)) -v d="$(echo "$s1 - $s0" | bc)" -v r="$rps" -v la="$(cut -d' ' -f1 /proc/loadavg)" \
		'BEGIN { printf "%s: rps=%s taskd=%.0fus/req load=%.0fus/req (taskd %.2f cores, load %.2f cores, loadavg %s)\n", s, r, t * 1e4 / d / r, l * 1e4 / d / r, t / 100 / d, l / 100 / d, la }'
done
