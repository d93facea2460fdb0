# Runs the benchmark suite twice on the simulator, each in its own process,
# with the same machine, seed and sizes, and fails unless the results are
# byte-identical (less the wall-clock "time" field each line carries).
#   cmake -DBENCH=<locus-bench> -DOUT=<dir> -DWORKERS=1,8,32 -P sim_determinism.cmake
foreach(run a b)
  file(REMOVE ${OUT}/sim_${run}.jsonl)
  execute_process(
    COMMAND ${BENCH} --engine sim --machine numa-ws-4x8 --size tiny --workers ${WORKERS} --quiet
            --out ${OUT}/sim_${run}.jsonl
    RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "locus-bench --engine sim failed (exit ${status})")
  endif()
  file(READ ${OUT}/sim_${run}.jsonl text)
  string(REGEX REPLACE "\"time\":\"[^\"]*\"" "" text_${run} "${text}")
endforeach()
if(NOT text_a STREQUAL text_b)
  message(FATAL_ERROR "two simulated runs differ: compare ${OUT}/sim_a.jsonl and ${OUT}/sim_b.jsonl")
endif()
string(LENGTH "${text_a}" length)
message(STATUS "two simulated runs of the suite are identical (${length} bytes)")
