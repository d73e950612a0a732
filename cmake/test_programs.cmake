# How test programs are compiled and registered with ctest (tests/ and tests/gui/ use both).

# Test code checks results; it is not what is timed. In every configuration that optimises, test programs
# compile with ATTNLAB_TEST_FLAGS (after the build type's flags, so they win): -O1, and line tables only
# for debug info (assertion backtraces keep file and line; debug information is much of a test file's
# compile time). The core, the views and the test support library keep the build type's flags. For a
# debugger session inside a test, configure with -DATTNLAB_TEST_FLAGS="-O0 -g".
set(ATTNLAB_TEST_FLAGS "-O1 -g1" CACHE STRING "Compiler flags of the test programs (optimising build types)")
separate_arguments(attnlab_test_flags UNIX_COMMAND "${ATTNLAB_TEST_FLAGS}")
add_library(attnlab_test_options INTERFACE)
target_compile_options(attnlab_test_options INTERFACE "$<$<NOT:$<CONFIG:Debug>>:${attnlab_test_flags}>")

# attnlab_add_test_program(<target> [SHARDS <n>] [ENVIRONMENT <VAR=value>...])
# One ctest entry per GoogleTest program, named after it: the program runs all its cases in one process,
# and on a failure its output (shown by the presets' outputOnFailure) names each failing case and ends
# with GoogleTest's list of them. SHARDS n > 1 registers n entries <target>_<k>_of_<n>, each running every
# n-th case (GoogleTest's sharding), for a program long enough to keep both cores busy.
function(attnlab_add_test_program target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SHARDS" "ENVIRONMENT")
  if(NOT arg_SHARDS OR arg_SHARDS LESS 2)
    add_test(NAME ${target} COMMAND ${target})
    set_tests_properties(${target} PROPERTIES TIMEOUT 1500 ENVIRONMENT "${arg_ENVIRONMENT}")
    return()
  endif()
  math(EXPR last "${arg_SHARDS} - 1")
  foreach(index RANGE ${last})
    math(EXPR shard "${index} + 1")
    set(name ${target}_${shard}_of_${arg_SHARDS})
    add_test(NAME ${name} COMMAND ${target})
    set_tests_properties(${name} PROPERTIES TIMEOUT 1500 ENVIRONMENT
                         "${arg_ENVIRONMENT};GTEST_TOTAL_SHARDS=${arg_SHARDS};GTEST_SHARD_INDEX=${index}")
  endforeach()
endfunction()
