#!/usr/bin/env bash
# bench/run.sh: measure taskd's administrative API against a ceiling.
#
# Builds taskd and the load generator, starts `taskd serve --dev` on a free
# loopback port with a fresh data directory (SQLite), or on a fresh
# PostgreSQL database created for the run on the server TASKD_BENCH_POSTGRES
# names (and dropped after it), seeds one project of 100 tasks (every 4th
# with 3 subtasks), then runs the ceiling, get_tasks and post_task scenarios
# and prints their result lines and get_tasks rps / ceiling rps and
# post_task rps / ceiling rps.
#
# Environment:
#   DURATION              measured time of each scenario (default 10s)
#   CLIENTS               concurrent clients (default 16)
#   WARMUP                warm-up before each measurement (default 1s)
#   TASKD_BENCH_POSTGRES  postgres:// URL of a database on the server to use (psql
#                         connects to it to create and drop taskd_bench_PID);
#                         empty means SQLite in a temp dir
#   TASKD_BENCH_SAVE      when 1, also write the report to bench/results/
#   PROFILE               a directory: writes a CPU profile of taskd over each of its
#                         scenarios' measured time there (get_tasks.pprof, post_task.pprof)
#   TASKD_BIN             a taskd binary to measure instead of building this tree's
#                         (bench/ab.sh sets it)
#   TASKD_BENCH_LIMITS    rate-limit flags of serve (default: limits on, far above the load,
#                         so their cost is measured; "--api-rate-limit 0 --api-rate-limit-address 0"
#                         measures without them)
set -euo pipefail

DURATION=${DURATION:-10s}
CLIENTS=${CLIENTS:-16}
WARMUP=${WARMUP:-1s}
PG=${TASKD_BENCH_POSTGRES:-}
SAVE=${TASKD_BENCH_SAVE:-}
LIMITS=${TASKD_BENCH_LIMITS:---api-rate-limit 1000000000 --api-rate-limit-address 1000000000}
PROFILE=${PROFILE:-}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/taskd-bench.XXXXXX")
server_pid=""
report=""
bench_root=$root
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

# cleanup stops the server, drops the run's database and removes the
# temporary directory.
cleanup() {
	if [[ -n $server_pid ]]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	drop_database
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	echo "run.sh: $*" >&2
	exit 1
}

# say prints a report line and keeps it for TASKD_BENCH_SAVE.
say() {
	printf '%s\n' "$*"
	report+="$*"$'\n'
}

# build compiles taskd and the load generator into $tmp.
build() {
	{ build_taskd "$tmp" && (cd "$root" && go build -o "$tmp/load" ./bench/load); } || die "build failed"
}

# fresh_database_for_run points PG at an empty database made for the run (lib.sh).
fresh_database_for_run() {
	fresh_database "$PG" || die "no database for the run"
	PG=$bench_url
}

# storage_flags prints the storage flags shared by serve and account create.
# --data also holds the master key that seals API keys, with PostgreSQL too.
storage_flags() {
	printf '%s\n' --data "$tmp/data"
	if [[ -n $PG ]]; then
		printf '%s\n' --db "$PG"
	fi
}

# start_server starts taskd on a free loopback port, sets base_url and waits
# for /healthz.
start_server() {
	local flags limits i debug=()
	mapfile -t flags < <(storage_flags)
	read -ra limits <<<"$LIMITS"
	[[ -n $PROFILE ]] && debug=(--debug-addr 127.0.0.1:6062)
	"$tmp/taskd" serve --dev --log-level warn --addr 127.0.0.1:0 "${flags[@]}" "${limits[@]}" "${debug[@]}" \
		>"$tmp/serve.out" 2>"$tmp/serve.err" &
	server_pid=$!
	base_url=""
	for i in $(seq 100); do
		base_url=$(sed -n 's|^taskd listening on \(http://127\.0\.0\.1:[0-9]*\) .*|\1|p' "$tmp/serve.out")
		[[ -n $base_url ]] && break
		kill -0 "$server_pid" 2>/dev/null || die "taskd serve exited: $(cat "$tmp/serve.err")"
		sleep 0.1
	done
	[[ -n $base_url ]] || die "taskd serve did not start: $(cat "$tmp/serve.err")"
	for i in $(seq 100); do
		curl -fsS --max-time 1 "$base_url/healthz" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	die "$base_url/healthz did not answer"
}

# create_account creates the account and sets account_url and key.
create_account() {
	local flags slug out
	mapfile -t flags < <(storage_flags)
	slug=bench
	out=$("$tmp/taskd" account create "${flags[@]}" --slug "$slug" --name "Bench" \
		--owner-email "$slug@example.com" --owner-password benchpassword1) || die "account create failed"
	key=$(sed -n 's/.*"api_key":"\([0-9a-zA-Z]*\)".*/\1/p' <<<"$out")
	[[ -n $key ]] || die "no api_key in: $out"
	account_url="$base_url/a/$slug"
}

# api QUERY signs QUERY with the account key, calls it and prints the body;
# it fails unless the answer is "status":"ok".
api() {
	local q=$1 hash body
	hash=$(printf '%s' "$q$key" | md5sum | cut -d' ' -f1)
	body=$(curl -sS --max-time 10 "$account_url/api/admin/v2/?$q&hash=$hash") || die "call failed: $q"
	[[ $body == *'"status":"ok"'* ]] || die "call $q answered: $body"
	printf '%s' "$body"
}

# new_id prints the id of the object a post_* call created.
new_id() {
	local id
	id=$(api "$1" | sed -n 's/^{"status":"ok","data":{"id":"\([0-9]*\)".*/\1/p')
	[[ -n $id ]] || die "no id from $1"
	printf '%s' "$id"
}

# seed creates the read project (100 tasks, every 4th with 3 subtasks) and
# the project post_task writes into; it sets read_project and write_project.
seed() {
	local i j task
	read_project=$(new_id "action=post_project&title=Bench+read")
	write_project=$(new_id "action=post_project&title=Bench+write")
	for i in $(seq 100); do
		task=$(new_id "action=post_task&id_project=$read_project&title=Task+$i&priority=$((i % 11))")
		if ((i % 4 == 0)); then
			for j in 1 2 3; do
				new_id "action=post_task&id_project=$read_project&id_parent=$task&title=Subtask+$i.$j" >/dev/null
			done
		fi
	done
}

# check_seed verifies the read project holds 175 tasks and sets body_size.
check_seed() {
	local body n
	body=$(api "action=get_tasks&id_project=$read_project")
	n=$({ grep -o '"page":"/project/' <<<"$body" || true; } | wc -l)
	((n == 175)) || die "get_tasks returned $n tasks, want 175"
	# The response ends in a newline, which $(…) dropped.
	body_size=$(($(printf '%s\n' "$body" | wc -c)))
}

# load SCENARIO PROJECT runs the load generator and prints its line; for
# taskd's scenarios the line ends with taskd's CPU seconds over the measured
# time (cpu_s) and per measured request in µs (cpu_us).
load() {
	local line pid=() profiler=""
	[[ $1 != ceiling ]] && pid=(--pid "$server_pid")
	if [[ -n $PROFILE && $1 != ceiling ]]; then
		mkdir -p "$PROFILE"
		# The profile starts after the warm-up and lasts the measured time.
		(sleep "${WARMUP%s}" && curl -fsS -o "$PROFILE/$1.pprof" \
			"http://127.0.0.1:6062/debug/pprof/profile?seconds=${DURATION%s}") &
		profiler=$!
	fi
	line=$("$tmp/load" --url "$account_url" --key "$key" --scenario "$1" --project "$2" "${pid[@]}" \
		--clients "$CLIENTS" --duration "$DURATION" --warmup "$WARMUP") || {
		[[ -z $line ]] || printf '%s\n' "$line" >&2
		die "scenario $1 failed"
	}
	[[ -z $profiler ]] || wait "$profiler" || die "no profile of $1"
	printf '%s\n' "$line"
}

# rps prints the rps figure of a result line.
rps() { sed -n 's/.* rps=\([0-9.]*\) .*/\1/p' <<<"$1"; }

main() {
	local db=sqlite ceiling get post ratio
	[[ -n $PG ]] && db=postgres
	[[ -n $PG ]] && fresh_database_for_run
	build
	start_server
	create_account
	seed
	check_seed
	say "# taskd bench $(date -u +%Y-%m-%dT%H:%M:%SZ) commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
		"db=$db cpus=$(nproc) $(go version | cut -d' ' -f3)"
	say "# clients=$CLIENTS duration=$DURATION warmup=$WARMUP get_tasks: 175 tasks, $body_size bytes"
	ceiling=$(load ceiling "$read_project")
	say "$ceiling"
	get=$(load get_tasks "$read_project")
	say "$get"
	post=$(load post_task "$write_project")
	say "$post"
	ratio=$(awk -v g="$(rps "$get")" -v c="$(rps "$ceiling")" 'BEGIN { printf "%.1f", 100 * g / c }')
	say "get_tasks/ceiling=$ratio%"
	ratio=$(awk -v p="$(rps "$post")" -v c="$(rps "$ceiling")" 'BEGIN { printf "%.1f", 100 * p / c }')
	say "post_task/ceiling=$ratio%"
	if [[ $SAVE == 1 ]]; then
		mkdir -p "$root/bench/results"
		local file
		file="$root/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-$db.txt"
		printf '%s' "$report" >"$file"
		echo "saved $file"
	fi
}

main "$@"
