#!/usr/bin/env bash
# The shipped programs with bad settings and flags: each must print exactly
# one line on stderr that names the setting or flag and its value, and exit
# with status 2 (locus_support/program.hpp); settings a program could override are
# honoured or rejected, never dropped; LOCUS_STATS takes only its documented
# values; locus-bench creates --out's directory itself and records where its
# results come from.
#   test_programs.sh BIN_DIR
set -u
bin=$(cd "$1" && pwd) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_error TEXT [VAR=value...] -- PROGRAM [ARGS...]
# Runs the program with the variables set; stderr must be one line holding
# TEXT, and the exit status 2.
expect_error() {
  local want=$1
  shift
  local vars=()
  while [[ $1 != -- ]]; do
    vars+=("$1")
    shift
  done
  shift
  # An error comes before any work: a program still running after a minute
  # ran what it should have refused.
  timeout 60 env "${vars[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
  local status=$?
  local lines
  lines=$(wc -l <"$tmp/err")
  if [[ $status != 2 || $lines != 1 ]] || ! grep -qF -- "$want" "$tmp/err"; then
    fail "${vars[*]} $*: exit $status, $lines lines on stderr, wanted one naming '$want':"
    sed 's/^/    /' "$tmp/err"
  fi
}

bench=("$bin/locus-bench" --benchmarks fib --size tiny --reps 1 --warmup 0 --workers 1 --quiet --out "$tmp/b.jsonl")
fib=("$bin/fib" 20 --reps 1 --workers 1)
demo=("$bin/locus-demo")
topo=("$bin/locus-topo")
speed=("$bin/locus-sim-speed" --mib 1)

# The settings of issue 10, and a few more, in every program.
for program in bench fib demo topo speed; do
  declare -n cmd=$program
  expect_error 'LOCUS_WORKERS="0"' LOCUS_WORKERS=0 -- "${cmd[@]}"
  expect_error 'LOCUS_WORKERS="abc"' LOCUS_WORKERS=abc -- "${cmd[@]}"
  expect_error 'LOCUS_PLACES="cores"' LOCUS_PLACES=cores -- "${cmd[@]}"
  expect_error 'LOCUS_TOPOLOGY="garbage"' LOCUS_TOPOLOGY=garbage -- "${cmd[@]}"
  expect_error 'LOCUS_STACK_SIZE="1"' LOCUS_STACK_SIZE=1 -- "${cmd[@]}"
  expect_error 'LOCUS_MACHINE="nosuch"' LOCUS_ENGINE=sim LOCUS_MACHINE=nosuch -- "${cmd[@]}"
  expect_error 'LOCUS_POLICY="foo"' LOCUS_POLICY=foo -- "${cmd[@]}"
  expect_error 'LOCUS_STATS="yes"' LOCUS_STATS=yes -- "${cmd[@]}"
  expect_error 'LOCUS_TRACE_MAX="12Q"' LOCUS_TRACE=t.json LOCUS_TRACE_MAX=12Q -- "${cmd[@]}"
  expect_error 'LOCUS_TRACE="/nonexistent-dir/t.json": cannot create this file' LOCUS_TRACE=/nonexistent-dir/t.json -- "${cmd[@]}"
  unset -n cmd
done
[[ -e yes ]] && fail "LOCUS_STATS=yes wrote a file named yes"

# Flags: named as the user wrote them, with what is accepted.
expect_error '--workers 100000: expected the number of workers, an integer from 1 to 4096' -- "$bin/locus-bench" --workers 100000
expect_error 'fib: --param n=-5: fib(n), which must fit in 64 bits; accepted: an integer from 0 to 92' -- \
  "$bin/locus-bench" --benchmarks fib --param n=-5 --out "$tmp/b.jsonl"
expect_error '--param cutoff=1' -- "$bin/locus-bench" --benchmarks fib-cutoff --param cutoff=1 --out "$tmp/b.jsonl"
expect_error '--param nope=1: not a parameter of fib' -- "$bin/locus-bench" --benchmarks fib --param nope=1
expect_error 'nonzer=3000, na=2000' -- "$bin/locus-bench" --benchmarks cg --size tiny --param nonzer=3000 \
  --out "$tmp/b.jsonl" --quiet
expect_error 'LOCUS_MACHINE="nonexistent"' LOCUS_MACHINE=nonexistent -- "$bin/locus-bench" --engine sim
expect_error '--workers 1,2 conflicts with LOCUS_WORKERS="2"' LOCUS_WORKERS=2 -- "$bin/locus-bench" --workers 1,2
expect_error '--variants locus:numa-ws conflicts with LOCUS_POLICY="ws"' LOCUS_POLICY=ws -- \
  "$bin/locus-bench" --variants locus:numa-ws
# Modifiers come in their order (loops, data, colors), each once.
expect_error 'variant "locus:nabbitc+bad-colors+interleave": accepted are' -- \
  "$bin/locus-bench" --variants locus:nabbitc+bad-colors+interleave
expect_error 'variant "locus:nabbitc+bad-colors+invalid-colors": accepted are' -- \
  "$bin/locus-bench" --variants locus:nabbitc+bad-colors+invalid-colors
expect_error '--machine numa-ws-4x8' -- "$bin/locus-bench" --machine numa-ws-4x8
expect_error 'unknown option --bogus' -- "$bin/locus-bench" --bogus
touch "$tmp/plain-file"
expect_error "--out $tmp/plain-file/r.jsonl: cannot create the directory" -- "$bin/locus-bench" --out "$tmp/plain-file/r.jsonl"
expect_error "--trace $tmp/plain-file/traces: cannot create this directory" -- "$bin/locus-bench" --trace "$tmp/plain-file/traces"
expect_error 'n="50": expected the argument of fib(n), an integer from 2 to 45' -- "$bin/fib" 50
expect_error '--workers 0' -- "$bin/fib" --workers 0
expect_error '--places="cores"' -- "$bin/locus-topo" --places cores
expect_error 'unknown option "--bogus"' -- "$bin/locus-topo" --bogus
expect_error '--workers 100000' -- "$bin/locus-sim-speed" --workers 100000
expect_error 'LOCUS_ENGINE="threaded"' LOCUS_ENGINE=threaded -- "$bin/locus-sim-speed"

# Honoured settings: locus-bench runs what LOCUS_ENGINE, LOCUS_MACHINE,
# LOCUS_WORKERS, LOCUS_POLICY and LOCUS_PLACES say (on the simulator, which
# runs serial and locus only: no uninstrumented oneTBB or OpenMP under a
# sanitizer), into a directory it creates (a quote in the name is just a
# character: no shell sees it), after a run record.
out="$tmp/it's new/r.jsonl"
if ! LOCUS_ENGINE=sim LOCUS_MACHINE=tbb-numa-nehalem-2x4 LOCUS_WORKERS=1 LOCUS_POLICY=numa-ws LOCUS_PLACES=core \
  "$bin/locus-bench" --benchmarks fib --size tiny --quiet --out "$out" 2>"$tmp/err"; then
  fail "locus-bench with honoured settings: $(cat "$tmp/err")"
elif ! head -1 "$out" | grep -q '"record":"run".*"commit":.*"compiler":.*"libraries":.*"settings":{"LOCUS_'; then
  fail "the first line of $out is not a run record: $(head -1 "$out")"
else
  grep -q '"variant":"locus:ws"' "$out" && fail "LOCUS_POLICY=numa-ws ran locus:ws"
  grep -q '"variant":"locus:numa-ws","workers":1,' "$out" || fail "LOCUS_POLICY=numa-ws did not run locus:numa-ws on 1 worker"
  grep -q '"workers":[2-9]' "$out" && fail "LOCUS_WORKERS=1 ran on more workers"
  grep -q '"engine":"sim".*"placement":"core".*"machine":"tbb-numa-nehalem-2x4"' "$out" ||
    fail "LOCUS_ENGINE, LOCUS_PLACES or LOCUS_MACHINE was not honoured: $(tail -1 "$out")"
fi

# LOCUS_STATS=json:FILE writes FILE; 0 writes nothing.
LOCUS_STATS="json:$tmp/stats.json" "${fib[@]}" >/dev/null 2>&1 || fail "fib with LOCUS_STATS=json:FILE failed"
grep -q '"elapsed_s"' "$tmp/stats.json" 2>/dev/null || fail "LOCUS_STATS=json:FILE wrote no JSON"
LOCUS_STATS=0 "${fib[@]}" >/dev/null 2>"$tmp/err" || fail "fib with LOCUS_STATS=0 failed"
[[ -s $tmp/err ]] && fail "LOCUS_STATS=0 printed: $(cat "$tmp/err")"

# locus-bench --trace DIR: one trace per locus cell, named in its result line.
if ! "${bench[@]}" --variants serial,locus:ws --trace "$tmp/traces" 2>"$tmp/err"; then
  fail "locus-bench --trace: $(cat "$tmp/err")"
else
  grep -q "\"trace\":\"$tmp/traces/fib_locus-ws_P1.json\"" "$tmp/b.jsonl" || fail "locus-bench --trace: no trace in the result line"
  grep -q '"producer":"locus"' "$tmp/traces/fib_locus-ws_P1.json" 2>/dev/null || fail "locus-bench --trace wrote no trace"
  [[ -e $tmp/traces/fib_serial_P1.json ]] && fail "locus-bench --trace traced the serial variant on threads"
fi

if ((failures > 0)); then
  echo "$failures failures"
  exit 1
fi
echo "every program reported every bad setting and flag in one line with exit status 2"
