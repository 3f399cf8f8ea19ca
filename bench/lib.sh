# bench/lib.sh: what the bench scripts share; they source it.

# fresh_database URL creates an empty database taskd_bench_PID on the
# PostgreSQL server of URL and sets bench_db (its name), bench_admin_url
# (URL, to drop it with) and bench_url (URL pointing at it). A database an
# earlier run left would hold that run's master key check, which a new data
# directory's key does not pass. drop_database drops it.
fresh_database() {
	bench_admin_url=$1
	bench_db="taskd_bench_$$"
	command -v psql >/dev/null || { echo "psql is needed with TASKD_BENCH_POSTGRES" >&2; return 1; }
	psql -q -X "$bench_admin_url" -c "DROP DATABASE IF EXISTS $bench_db" -c "CREATE DATABASE $bench_db" >/dev/null || {
		echo "cannot create database $bench_db" >&2
		return 1
	}
	# postgres://user@host:port/NAME?params: replace NAME (or add it).
	local base=${1%%\?*} params=""
	[[ $1 == *\?* ]] && params="?${1#*\?}"
	if [[ ${base#*://} == */* ]]; then
		base=${base%/*}
	fi
	bench_url="$base/$bench_db$params"
}

# drop_database drops the database fresh_database made, if any.
drop_database() {
	if [[ -n ${bench_db:-} ]]; then
		psql -q -X "$bench_admin_url" -c "DROP DATABASE IF EXISTS $bench_db" >/dev/null 2>&1 || true
		bench_db=""
	fi
}

# build_taskd DIR puts taskd in DIR: a copy of TASKD_BIN when it is set (so
# that bench/ab.sh can measure a build of another commit), else a build of
# this tree.
build_taskd() {
	if [[ -n ${TASKD_BIN:-} ]]; then
		cp "$TASKD_BIN" "$1/taskd"
	else
		(cd "$bench_root" && go build -o "$1/taskd" ./cmd/taskd)
	fi
}
