# Install rules (LOCUS_INSTALL): the static library, the public headers, a
# relocatable CMake package (locus::locus) and a pkg-config file. What lands
# where is listed in docs/packaging.md.
include(CMakePackageConfigHelpers)

set(LOCUS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/locus)

install(TARGETS locus EXPORT locusTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The whole public tree, detail/ included: the public headers include it.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/locus DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
install(EXPORT locusTargets NAMESPACE locus:: DESTINATION ${LOCUS_CMAKE_DIR})
# locus::mpi (docs/mpi.md), when it is built: an export set of its own, which
# locusConfig.cmake loads only if the consumer's find_package(MPI) finds the
# C++ bindings, so that find_package(locus) never needs MPI.
if(TARGET locus_mpi)
  set_target_properties(locus_mpi PROPERTIES EXPORT_NAME mpi)
  install(TARGETS locus_mpi EXPORT locusMpiTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT locusMpiTargets NAMESPACE locus:: DESTINATION ${LOCUS_CMAKE_DIR})
endif()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/locusConfig.cmake.in
  ${PROJECT_BINARY_DIR}/locusConfig.cmake
  INSTALL_DESTINATION ${LOCUS_CMAKE_DIR})
# Before 1.0 a minor version may change the API: 0.1 satisfies 0.1.x only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/locusConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/locusConfig.cmake ${PROJECT_BINARY_DIR}/locusConfigVersion.cmake
  DESTINATION ${LOCUS_CMAKE_DIR})

# locus.pc. liblocus.a is the only library built, so every link against it
# needs Boost.Context, hwloc and libnuma: they are in Requires and Libs, not
# in the .private fields, which only `pkg-config --static` reads (and which
# would then also pull in hwloc's own private dependencies, e.g. libudev,
# whose static libraries a Debian system does not have).
# Paths relative to the file itself (${pcfiledir}), so an installed
# tree can be moved, unless the install directories were given as absolute.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(LOCUS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(LOCUS_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(LOCUS_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _locus_pc_up /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  string(REGEX REPLACE "/$" "" _locus_pc_up "${_locus_pc_up}")
  set(LOCUS_PC_PREFIX "\${pcfiledir}/${_locus_pc_up}")
  set(LOCUS_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(LOCUS_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# A sanitized locus needs its consumers compiled and linked the same way.
set(LOCUS_PC_SANITIZE "")
set(LOCUS_PC_SANITIZE_LINK "")
if(LOCUS_SANITIZE_COMPILE_OPTIONS)
  list(JOIN LOCUS_SANITIZE_COMPILE_OPTIONS " " _locus_flags)
  set(LOCUS_PC_SANITIZE " ${_locus_flags}")
  list(JOIN LOCUS_SANITIZE_LINK_OPTIONS " " _locus_flags)
  set(LOCUS_PC_SANITIZE_LINK " ${_locus_flags}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/locus.pc.in ${PROJECT_BINARY_DIR}/locus.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/locus.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
