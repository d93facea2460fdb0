# The packaging test (ctest -R consumer): installs locus from its build tree
# into a temporary prefix, moves the prefix (the packages must be
# relocatable), then builds and runs tests/consumer/consumer.cpp three ways:
#   find_package   CMake, find_package(locus) against the moved prefix
#   pkg-config     the compiler alone, flags from pkg-config
#   add_subdirectory  CMake, locus's source tree as a subproject
# oneTBB, OpenMP and GoogleTest are disabled for every consumer configure
# (CMAKE_DISABLE_FIND_PACKAGE_*: a REQUIRED find of them is then an error),
# and the subproject must leave the consumer's cache and tree alone.
#
# cmake -DLOCUS_BUILD_DIR=... -DLOCUS_SOURCE_DIR=... -DWORK=... -DGENERATOR=...
#       -DCXX=... -DLIBDIR=... [-DCONFIG=...] -P run.cmake

foreach(v LOCUS_BUILD_DIR LOCUS_SOURCE_DIR WORK GENERATOR CXX LIBDIR)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake: -D${v}=... is required")
  endif()
endforeach()

set(CONSUMER_DIR ${LOCUS_SOURCE_DIR}/tests/consumer)
set(CONFIG_ARG "")
if(CONFIG)
  set(CONFIG_ARG --config ${CONFIG})
endif()
# CMake takes a default build type from the environment; the subproject check
# below needs the consumer to have none.
unset(ENV{CMAKE_BUILD_TYPE})
set(NO_BASELINES -DCMAKE_DISABLE_FIND_PACKAGE_TBB=ON -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
                 -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON)

# Runs a command; on failure stops the test with the step's name and output.
function(step name)
  message(STATUS "consumer test: ${name}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer test: ${name} failed (${rc}):\n${out}")
  endif()
  set(STEP_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

function(expect_cache build_dir entry expected)
  file(STRINGS ${build_dir}/CMakeCache.txt line REGEX "^${entry}:[A-Z]+=")
  string(REGEX REPLACE "^${entry}:[A-Z]+=" "" value "${line}")
  if(line STREQUAL "" OR NOT value STREQUAL expected)
    message(FATAL_ERROR "consumer test: ${build_dir}: expected ${entry}='${expected}' in the consumer's cache, got '${line}'")
  endif()
endfunction()

function(expect_no_cache build_dir regex why)
  file(STRINGS ${build_dir}/CMakeCache.txt lines REGEX "${regex}")
  if(lines)
    message(FATAL_ERROR "consumer test: ${build_dir}: ${why}: ${lines}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

step("install into a temporary prefix"
     ${CMAKE_COMMAND} --install ${LOCUS_BUILD_DIR} --prefix ${WORK}/staged ${CONFIG_ARG})
file(RENAME ${WORK}/staged ${WORK}/prefix)
foreach(f include/locus/locus.hpp include/locus/detail/frame.hpp ${LIBDIR}/liblocus.a
          ${LIBDIR}/cmake/locus/locusConfig.cmake ${LIBDIR}/cmake/locus/locusConfigVersion.cmake
          ${LIBDIR}/pkgconfig/locus.pc)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "consumer test: the install did not install ${f}")
  endif()
endforeach()

# ---------------------------------------------------------------- find_package
# Debug, while the installed library is Release: the imported target must
# still map to it.
set(B ${WORK}/find_package)
step("find_package: configure"
     ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${B} -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX}
     -DCMAKE_BUILD_TYPE=Debug -DCMAKE_PREFIX_PATH=${WORK}/prefix -DLOCUS_CONSUMER_ROUTE=find_package
     ${NO_BASELINES})
# The moved prefix, not some other installed locus.
expect_cache(${B} locus_DIR ${WORK}/prefix/${LIBDIR}/cmake/locus)
step("find_package: build" ${CMAKE_COMMAND} --build ${B})
step("find_package: run" ${B}/consumer)
string(STRIP "${STEP_OUTPUT}" STEP_OUTPUT)
message(STATUS "${STEP_OUTPUT}")

# ---------------------------------------------------------------- pkg-config
set(B ${WORK}/pkg-config)
file(MAKE_DIRECTORY ${B})
find_program(PKG_CONFIG_EXECUTABLE pkg-config)
if(NOT PKG_CONFIG_EXECUTABLE)
  message(FATAL_ERROR "consumer test: pkg-config not found (Debian: pkg-config)")
endif()
set(ENV{PKG_CONFIG_PATH} ${WORK}/prefix/${LIBDIR}/pkgconfig)
step("pkg-config: --cflags" ${PKG_CONFIG_EXECUTABLE} --cflags locus)
string(STRIP "${STEP_OUTPUT}" cflags)
string(FIND "${cflags}" "-I${WORK}/prefix/" at)
if(at EQUAL -1)
  message(FATAL_ERROR "consumer test: pkg-config --cflags locus gave '${cflags}', not the moved prefix ${WORK}/prefix")
endif()
step("pkg-config: --libs" ${PKG_CONFIG_EXECUTABLE} --libs locus)
string(STRIP "${STEP_OUTPUT}" libs)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
separate_arguments(libs UNIX_COMMAND "${libs}")
step("pkg-config: compile and link"
     ${CXX} -std=c++20 -O2 ${cflags} ${CONSUMER_DIR}/consumer.cpp -o ${B}/consumer ${libs})
step("pkg-config: run" ${B}/consumer)
string(STRIP "${STEP_OUTPUT}" STEP_OUTPUT)
message(STATUS "${STEP_OUTPUT}")
unset(ENV{PKG_CONFIG_PATH})

# ---------------------------------------------------------------- add_subdirectory
# No build type: locus must not choose one for the consumer.
set(B ${WORK}/add_subdirectory)
step("add_subdirectory: configure"
     ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${B} -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX}
     -DLOCUS_CONSUMER_ROUTE=add_subdirectory -DLOCUS_SOURCE_DIR=${LOCUS_SOURCE_DIR} ${NO_BASELINES}
     -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
expect_cache(${B} CMAKE_BUILD_TYPE "")
# locus's warning options are its own (directory scope): the consumer's
# compile line must not have them.
file(READ ${B}/compile_commands.json commands)
string(JSON n LENGTH "${commands}")
math(EXPR last "${n} - 1")
set(consumer_command "")
foreach(i RANGE ${last})
  string(JSON file GET "${commands}" ${i} file)
  if(file MATCHES "/consumer\\.cpp$")
    string(JSON consumer_command GET "${commands}" ${i} command)
  endif()
endforeach()
if(consumer_command STREQUAL "" OR consumer_command MATCHES " -Wall ")
  message(FATAL_ERROR "consumer test: locus's own compile options reached the consumer: '${consumer_command}'")
endif()
foreach(opt LOCUS_BUILD_TESTS LOCUS_BUILD_BENCHMARKS LOCUS_BUILD_TOOLS LOCUS_INSTALL LOCUS_WITH_MPI)
  expect_cache(${B} ${opt} OFF)
endforeach()
expect_no_cache(${B} "^(TBB|GTest|OpenMP)[A-Za-z_]*:" "a subproject locus looked for a baseline or test framework")
if(EXISTS ${B}/CPackConfig.cmake)
  message(FATAL_ERROR "consumer test: the subproject wrote CPack's configuration into the consumer's build tree")
endif()
step("add_subdirectory: build" ${CMAKE_COMMAND} --build ${B} -j 2)
if(EXISTS ${B}/bin)
  message(FATAL_ERROR "consumer test: the subproject put programs into the consumer's bin/")
endif()
step("add_subdirectory: run" ${B}/consumer)
string(STRIP "${STEP_OUTPUT}" STEP_OUTPUT)
message(STATUS "${STEP_OUTPUT}")

message(STATUS "consumer test: find_package, pkg-config and add_subdirectory all built and ran the consumer")
