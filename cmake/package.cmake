# `cpack -G DEB` (make package): a Debian package of what the install rules
# install (cmake/install.cmake). Named as Debian names a static library with
# its headers; it depends on the -dev packages a consumer's link needs.
set(CPACK_PACKAGE_NAME liblocus-dev)
set(CPACK_PACKAGE_VENDOR "locus")
set(CPACK_PACKAGE_CONTACT "locus maintainers <maintainers@users.noreply.a-seed-57928e07.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "C++20 task-parallel runtime: fork-join, task groups and loops on work-stealing workers, NUMA-aware")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libboost-context-dev (>= ${LOCUS_BOOST_MIN}), libhwloc-dev, libnuma-dev")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake, pkg-config")
# locus::mpi (liblocus_mpi.a) is usable where MPI is: suggested, not needed.
if(TARGET locus_mpi)
  string(APPEND CPACK_DEBIAN_PACKAGE_SUGGESTS ", libopenmpi-dev")
endif()
# Static library and headers only: no shared object whose dependencies
# dpkg-shlibdeps would have to compute.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
include(CPack)
