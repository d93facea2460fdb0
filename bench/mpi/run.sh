#!/bin/sh
# Runs every variant of both hybrid programs (heat, cg) in two shapes of the
# same two cores, one after the other, appending the JSON lines to one file:
#
#   mpirun -np 2, 1 worker or thread per rank  (LOCUS_WORKERS=1 OMP_NUM_THREADS=1)
#   mpirun -np 1, 2 workers or threads          (LOCUS_WORKERS=2 OMP_NUM_THREADS=2)
#
# Within one program and shape the four variants take turns rep by rep, so
# a change in the machine's load touches all of them alike.
#
#   bench/mpi/run.sh RESULTS.jsonl [--size tiny|small|medium] [--reps N] [--bin PATH]
#
# Defaults: --size small, --reps 5, --bin build/bin/locus-mpi-bench under the
# source tree (make's build directory). Every run is verified against the
# serial computation; the script exits 1 if any was not (after running all).
# Binding: with -np 2 each rank is bound to a core (--bind-to core, Open
# MPI's default for 2 ranks; unbound, Linux was seen keeping both ranks'
# threads on cpu 0 while other programs ran on cpu 1); with -np 1 the rank
# is not bound (--bind-to none), so that its 2 threads can use both cores.
set -eu

usage() {
  echo "usage: $0 RESULTS.jsonl [--size tiny|small|medium] [--reps N] [--bin PATH]" >&2
  exit 2
}

[ $# -ge 1 ] || usage
out=$1
shift
size=small
reps=5
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/bin/locus-mpi-bench
while [ $# -gt 0 ]; do
  case $1 in
    --size) [ $# -ge 2 ] || usage; size=$2; shift 2 ;;
    --reps) [ $# -ge 2 ] || usage; reps=$2; shift 2 ;;
    --bin) [ $# -ge 2 ] || usage; bin=$2; shift 2 ;;
    *) usage ;;
  esac
done
if [ ! -x "$bin" ]; then
  echo "$0: $bin: not found; build the target locus-mpi-bench or give --bin PATH" >&2
  exit 2
fi
mpirun=${MPIEXEC:-mpirun}
# Open MPI refuses to run as root without this flag.
root_flag=
[ "$(id -u)" = 0 ] && root_flag=--allow-run-as-root

failed=0
for shape in "2 1" "1 2"; do
  set -- $shape
  ranks=$1
  workers=$2
  if [ "$ranks" -gt 1 ]; then bind=core; else bind=none; fi
  flags="$root_flag --bind-to $bind"
  for program in heat cg; do
    echo "== $program: $ranks ranks x $workers workers/threads, size $size, $reps reps" >&2
    # shellcheck disable=SC2086
    if ! env LOCUS_WORKERS="$workers" OMP_NUM_THREADS="$workers" \
        "$mpirun" $flags -np "$ranks" "$bin" --bench "$program" --variant all --size "$size" \
        --reps "$reps" --warmup 1 --workers "$workers" --launch "$mpirun $flags -np $ranks" --out "$out"; then
      echo "$0: $program on $ranks ranks x $workers FAILED (see above)" >&2
      failed=1
    fi
  done
done
echo "results appended to $out" >&2
exit $failed
