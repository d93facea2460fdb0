# Checks that docs/architecture.md shows the example policy exactly as it is
# compiled and tested (tests/policies/example/example_policy.cpp).
file(READ "${DOC}" doc)
file(READ "${SOURCE}" source)
string(FIND "${doc}" "${source}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "docs/architecture.md does not contain ${SOURCE} verbatim: copy the file into its \"Adding a policy\" section")
endif()
