#!/usr/bin/env bash
# bench/ab.sh BASE: what this working tree costs against the commit BASE.
#
# Builds taskd at BASE (in a temporary worktree) and from the working tree,
# then runs the bench scripts on each build in turn, ROUNDS times, the order
# of the two builds swapped every round so that neither always runs on a
# warmer or quieter machine. The load tools themselves are built once, from
# the working tree, so both builds are measured with the same instrument.
# At the end it prints, for every figure, the median of each build's rounds,
# the rounds themselves and head/base (bench/abstat), and exits non-zero if
# any round lost or duplicated a webhook event or had a failed request.
#
#   bench/ab.sh 0d063dd                        # SQLite, 3 rounds of run.sh and hooks.sh
#   ROUNDS=5 SUITES=hooks bench/ab.sh main~3   # only the webhook scenarios
#   TASKD_BENCH_POSTGRES='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' bench/ab.sh 0d063dd
#
# Environment:
#   ROUNDS           rounds for each build (default 3)
#   SUITES           which to run each round, in order: "run hooks" (default); "refresh" adds
#                    OAuth refresh grants back to back (bench/flows --refresh-load)
#   RUN_DURATION     run.sh's DURATION, each of its scenarios (default 5s)
#   HOOKS_SCENARIOS  hooks.sh's SCENARIOS (default "burst rate")
#   HOOKS_DURATION   hooks.sh's DURATION, the rate scenario (default 10s)
#   REFRESH_DURATION the refresh grants' measured time (default 10s)
#   CLIENTS, WARMUP, CHANGES, RATE, WEBHOOKS, TASKD_BENCH_POSTGRES
#                    passed on to the scripts
#   KEEP             a directory to keep every round's output in (default: none)
set -euo pipefail

if [[ $# -ne 1 ]]; then
	echo "usage: bench/ab.sh BASE   (a commit, branch or tag)" >&2
	exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base=$(git -C "$root" rev-parse --verify --quiet "$1^{commit}") || {
	echo "ab.sh: $1 is not a commit" >&2
	exit 2
}
ROUNDS=${ROUNDS:-3}
SUITES=${SUITES:-run hooks}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/taskd-ab.XXXXXX")
cleanup() {
	git -C "$root" worktree remove --force "$tmp/src" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

head_name="working tree at $(git -C "$root" rev-parse --short HEAD)"
if [[ -z $(git -C "$root" status --porcelain --untracked-files=no) ]]; then
	head_name="$(git -C "$root" rev-parse --short HEAD)"
fi
echo "== ab: base $(git -C "$root" rev-parse --short "$base"), head $head_name; $ROUNDS rounds of: $SUITES" >&2
mkdir -p "$tmp/base" "$tmp/head" "$tmp/out"
git -C "$root" worktree add -q --detach "$tmp/src" "$base"
(cd "$tmp/src" && go build -o "$tmp/base/taskd" ./cmd/taskd)
(cd "$root" && go build -o "$tmp/head/taskd" ./cmd/taskd && go build -o "$tmp/abstat" ./bench/abstat &&
	go build -o "$tmp/flows" ./bench/flows)
git -C "$root" worktree remove --force "$tmp/src"

# measure BUILD ROUND runs every suite on BUILD's taskd.
measure() {
	local build=$1 round=$2 suite out
	for suite in $SUITES; do
		out="$tmp/out/$build-$suite-$round.txt"
		echo "== round $round of $ROUNDS: $suite on $build ($(date +%T))" >&2
		case $suite in
		run)
			TASKD_BIN="$tmp/$build/taskd" DURATION="${RUN_DURATION:-5s}" "$root/bench/run.sh" >"$out"
			;;
		hooks)
			TASKD_BIN="$tmp/$build/taskd" JSON=1 SCENARIOS="${HOOKS_SCENARIOS:-burst rate}" \
				DURATION="${HOOKS_DURATION:-10s}" "$root/bench/hooks.sh" >"$out"
			;;
		refresh)
			local db=(--sqlite)
			[[ -n ${TASKD_BENCH_POSTGRES:-} ]] && db=(--admin "$TASKD_BENCH_POSTGRES")
			"$tmp/flows" --taskd "$tmp/$build/taskd" --refresh-load "${REFRESH_DURATION:-10s}" \
				--clients "${CLIENTS:-16}" "${db[@]}" >"$out"
			;;
		*)
			echo "ab.sh: unknown suite $suite (run, hooks, refresh)" >&2
			exit 2
			;;
		esac
	done
}

for round in $(seq "$ROUNDS"); do
	if ((round % 2 == 1)); then
		measure base "$round"
		measure head "$round"
	else
		measure head "$round"
		measure base "$round"
	fi
done
if [[ -n ${KEEP:-} ]]; then
	mkdir -p "$KEEP"
	cp "$tmp"/out/*.txt "$KEEP"/
fi
"$tmp/abstat" "$tmp/out"
