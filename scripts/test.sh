#!/usr/bin/env bash
# Runs the whole test suite: every package with the race detector, on SQLite
# and on PostgreSQL, then a short fuzzing run of each parser target.
# While it runs it prints a line at least every minute: the phase, the
# packages (or fuzz targets) done of the total, the time so far and the
# packages still running.
#
# PostgreSQL: TASKD_TEST_POSTGRES may hold the URL of a server whose role can
# create databases. Otherwise a local server on 127.0.0.1:5432 is used
# (started if it is installed but stopped). Every test creates its own
# database there and drops it when done (internal/testdb), so two runs on one
# machine never meet. Without PostgreSQL the suite runs on SQLite only, except
# in CI (CI=true), where PostgreSQL is required.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
# so_far is the time since the run began, as 4m05s.
so_far() { local s=$(($(date +%s) - start)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# A count of executions, not a duration: with a duration Go's fuzzing
# coordinator can report "context deadline exceeded" as a failure when the
# time runs out under load, with no failing input (golang/go#75804).
# 50000 runs per target (a few seconds each, most of it coverage
# gathering) keep the fuzzing phase near a minute on 2 cores;
# longer runs are for a quiet machine: FUZZTIME=2000000x scripts/test.sh.
FUZZTIME=${FUZZTIME:-50000x}

pg_up() { command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1 -p 5432; }

if [ -z "${TASKD_TEST_POSTGRES:-}" ]; then
  if ! pg_up && command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    echo "== starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
    for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  fi
  if pg_up; then
    export TASKD_TEST_POSTGRES="postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
  elif [ "${CI:-}" = "true" ]; then
    echo "PostgreSQL is required in CI and could not be started" >&2
    exit 1
  else
    echo "warning: no PostgreSQL on 127.0.0.1:5432; running on SQLite only" >&2
  fi
fi
echo "== PostgreSQL: ${TASKD_TEST_POSTGRES:-not used}"

# Browser tests save screenshots of every page here (a CI artifact).
export TASKD_ARTIFACTS=${TASKD_ARTIFACTS:-$PWD/artifacts}
echo "== screenshots: $TASKD_ARTIFACTS/screenshots"

# The browser tests need Debian's chromium; without it they skip, which
# must never pass unnoticed.
if ! command -v chromium >/dev/null; then
  if [ "${CI:-}" = "true" ]; then
    echo "chromium is required in CI for the browser tests (.ci/run installs it)" >&2
    exit 1
  fi
  cat >&2 <<'WARN'
************************************************************************
* WARNING: chromium is not installed: the BROWSER TESTS WILL BE SKIPPED *
*          install it with: apt-get install -y chromium                *
************************************************************************
WARN
fi

# The page audit runs axe-core in Chromium; scripts/axe.sh fetches it from
# the npm registry (checked against its published integrity).
if TASKD_AXE=$(./scripts/axe.sh); then
  export TASKD_AXE
elif [ "${CI:-}" = "true" ]; then
  echo "axe-core could not be fetched; the page audit needs it in CI" >&2
  exit 1
else
  echo "WARNING: axe-core could not be fetched: the PAGE AUDIT WILL BE SKIPPED" >&2
fi

summary=$(mktemp)
# On the way out, the background run and the fuzzing's ticker stop too.
background=""
trap 'kill $background 2>/dev/null; rm -f "$summary" "$summary".*' EXIT
go build -o "$summary.bin" ./internal/testsummary
# The browser tests (every test that starts Chromium has "Browser" in its
# name) drive the pages as a person does and mostly wait on Chromium: they
# run without the race detector, beside the rest, which runs with it (the
# pages' handlers, the live hub and every other package, -race). Under
# -race the browser tests alone took 10 minutes of a 20-minute CI run;
# see docs/testing.md, "Running them".
# The account API's package (api) runs without it too, but for
# TestConcurrentRequests, which sends writes and reads at once through its
# two shared caches (rendered lists, verified signatures), the only state
# its handlers share: the store, the server and the webhook dispatcher
# under them are raced in their own packages, and under -race api's tests
# took 8 minutes of CPU, a third of the run.
# Their summary is printed once the race run is done; meanwhile only its
# progress lines (on stderr) show.
echo "== browser tests and the api package, in the background ($(date +%T))"
{
  go test -count=1 -timeout 25m -json -run Browser ./web
  go test -count=1 -timeout 25m -json ./api
  go test -race -count=1 -timeout 25m -json -run '^TestConcurrentRequests$' ./api
} 2>&1 | "$summary.bin" -o "$summary.b" -phase "browser tests and api" -packages 3 -since "$start" > "$summary.browser" &
browser=$!
background=$browser
echo "== go test -race ./... but api ($(date +%T))"
# -p 3: three packages at once beside the browser tests, since most
# packages' tests wait on their databases more than they compute.
packages=$(go list ./... | grep -v '/api$')
go test -race -count=1 -p 3 -timeout 25m -json -skip Browser $packages |
  "$summary.bin" -o "$summary" -phase "race run" -packages "$(echo "$packages" | wc -l)" -since "$start"
echo "== browser tests and api ($(date +%T), $(so_far) so far)"
browser_ok=true
wait "$browser" || browser_ok=false
background=""
cat "$summary.browser"
if ! $browser_ok; then exit 1; fi

echo "== fuzzing (${FUZZTIME} per target) ($(date +%T), $(so_far) so far)"
fuzzed=0
targets=$(grep -c '^fuzz Fuzz' "$0")
# Building a target's test binary can take a minute: a line every minute
# says where the run is.
echo "0 of $targets targets done" > "$summary.fuzzed"
while sleep 60; do echo "== fuzzing: $(cat "$summary.fuzzed"), $(so_far) so far"; done &
background=$!
fuzz() { # fuzz TARGET PACKAGE [go test flags]
  local target=$1 pkg=$2
  shift 2
  echo "== fuzzing $target ($pkg), $((fuzzed + 1)) of $targets, $(so_far) so far"
  go test -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" "$@" "$pkg"
  fuzzed=$((fuzzed + 1))
  echo "$fuzzed of $targets targets done" > "$summary.fuzzed"
}
# FuzzAdminRequest drives a whole server per input (about 1,000 inputs a
# second, against 4,000 to 40,000 for the parsers): a fifth of the runs
# keeps it under half a minute. A later -fuzztime wins over fuzz()'s.
fuzz FuzzAdminRequest ./api -fuzztime "${FUZZTIME_SERVER:-20000x}"
fuzz FuzzHashBindsParameters ./api
fuzz FuzzLocalPath ./web
fuzz FuzzParsers .
fuzz FuzzParsers ./wire
# Minimizing this target's new inputs can outlast -fuzztime (the run then fails with
# "context deadline exceeded"): keep minimization short.
fuzz FuzzParse ./filter -fuzzminimizetime 1x
fuzz FuzzParseCostTime ./wire -fuzzminimizetime 1x
fuzz FuzzCleanFileName .
fuzz FuzzParseJWT ./oauth
fuzz FuzzVerifyJWT ./oauth
fuzz FuzzBlocked ./webhook
fuzz FuzzCompose ./mail
fuzz FuzzParse ./quickadd
# The import's reader of a source's answers (issue 36).
fuzz FuzzDecode ./importer/source

echo "== passed in $(so_far): $(cat "$summary"); browser tests and api: $(cat "$summary.b"); fuzzing: $fuzzed targets, $FUZZTIME each"
