#!/bin/bash
# under_taskset.sh CPUS PROGRAM [ARGS...]: runs PROGRAM bound to CPUS, or
# exits 77 (ctest: skipped) when this machine cannot bind there.
cpus=$1
shift
taskset -c "$cpus" true 2>/dev/null || { echo "cannot bind to cpus $cpus here: skipped"; exit 77; }
exec taskset -c "$cpus" "$@"
