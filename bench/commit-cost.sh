#!/usr/bin/env bash
# What one commit costs this machine: pgbench sends each statement below at a fixed rate (so the
# machine is never saturated and the figures do not depend on how fast it is), and the machine's
# busy time from /proc/stat (user, system, interrupts, steal; not idle or I/O wait) is divided by
# the transactions it answered. The statements are a replay record's (db/replay-records.ts): one
# row committed, the same row in an UNLOGGED table (no WAL, nothing flushed), eight rows in one
# statement as a statement group writes them, and `SELECT 1` (the floor: pgbench, the protocol).
#
#   bench/commit-cost.sh                 # COMMIT_COST_RATE=800 COMMIT_COST_SECONDS=6 COMMIT_COST_ROUNDS=2
#   COMMIT_COST_URL=postgres://postgres@127.0.0.1:5432/test bench/commit-cost.sh
#
# It creates its tables (commit_cost_*) in that database and drops them at the end.
set -euo pipefail
export PGOPTIONS="-c client_min_messages=warning"

url=${COMMIT_COST_URL:-postgres://postgres@127.0.0.1:5432/postgres}
rate=${COMMIT_COST_RATE:-800}
seconds=${COMMIT_COST_SECONDS:-6}
rounds=${COMMIT_COST_ROUNDS:-2}
dir=$(mktemp -d)
trap 'psql -q "$url" -c "drop table if exists commit_cost_logged, commit_cost_unlogged" >/dev/null; rm -rf "$dir"' EXIT

columns="api_key text not null, timestamp_ms bigint not null, signature text not null,
  expires_at timestamptz not null, primary key (api_key, timestamp_ms, signature)"
psql -q "$url" <<SQL
drop table if exists commit_cost_logged, commit_cost_unlogged;
create table commit_cost_logged ($columns);
create index on commit_cost_logged (expires_at);
create unlogged table commit_cost_unlogged ($columns);
create index on commit_cost_unlogged (expires_at);
SQL

key="'ak_test_0123456789abcdef0123'"
signature="'sha256=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'"
row() { echo "($key, :t::bigint * 1000 + :client_id * 10 + $1, $signature, now() + interval '10 minutes')"; }
one() {
  printf '\\set t random(1, 2000000000)\ninsert into %s values %s on conflict do nothing returning 1;\n' "$1" "$(row 0)"
}
{
  printf '\\set t random(1, 2000000000)\ninsert into commit_cost_logged values '
  for i in 0 1 2 3 4 5 6 7; do
    [ "$i" -gt 0 ] && printf ', '
    row "$i" | tr -d '\n'
  done
  printf ' on conflict do nothing returning 1;\n'
} >"$dir/eight.sql"
one commit_cost_logged >"$dir/logged.sql"
one commit_cost_unlogged >"$dir/unlogged.sql"
echo 'select 1;' >"$dir/select.sql"

busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
measure() {
  local before after answered
  before=$(busy)
  answered=$(pgbench -n -M prepared -c 8 -j 1 -R "$rate" -T "$seconds" -f "$dir/$1.sql" "$url" 2>&1 |
    awk '/actually processed/ { print $NF }')
  after=$(busy)
  # /proc/stat counts in hundredths of a second: 10,000 µs each.
  echo "$1: $(((after - before) * 10000 / answered)) µs of the machine per transaction ($answered transactions)"
}

echo "$rate transactions a second, 8 connections, $seconds s each, $rounds rounds"
for _ in $(seq "$rounds"); do
  for statement in select logged unlogged eight; do measure "$statement"; done
done
