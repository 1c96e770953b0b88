# Out-of-tree build of ai-fabric against an installed ns-3 (Debian 12's libns3-dev
# 3.37 by default; CMAKE_PREFIX_PATH selects another install).
#
# Defines stand-ins for ns-3's build_lib() and build_lib_example() that take the
# same arguments, so CMakeLists.txt has one build_lib() call for both modes, and
# ai_fabric_add_out_of_tree_tests(), which registers everything with ctest:
# every ns-3 TestSuite (one ctest test each, through a small TestRunner::Run
# program), the GoogleTest tests, the examples of test/examples-to-run.py, the bad
# input of test/examples-to-refuse.py, and the format and wscript list checks.

# C++17 by default, as Debian's ns-3.37 is built; ns-3.48 builds as C++23, and
# -DAI_FABRIC_CXX_STANDARD=23 with CMAKE_PREFIX_PATH at an ns-3.48 install checks
# that the module compiles that way too. (ns-3.37's own headers are not C++20:
# its singleton.h declares constructors as Singleton<T>(), which GCC refuses.)
set(AI_FABRIC_CXX_STANDARD 17 CACHE STRING "C++ standard of the module's code (17, 20 or 23)")
set(CMAKE_CXX_STANDARD ${AI_FABRIC_CXX_STANDARD})
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()
find_program(AI_FABRIC_CCACHE ccache)
if(AI_FABRIC_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${AI_FABRIC_CCACHE})
endif()

# The package's version file demands an exact match, so ask for no version.
find_package(ns3 CONFIG REQUIRED)
if(DEFINED ns3_VERSION AND ns3_VERSION VERSION_LESS 3.36)
  message(FATAL_ERROR "ai-fabric needs ns-3.36 or later out of tree; found ${ns3_VERSION}. "
                      "For waf-era ns-3 use wscript-compat/wscript inside the ns-3 tree.")
endif()
message(STATUS "ai-fabric: building against ns-3 ${ns3_VERSION} (${ns3_DIR})")

# Imported targets are ns3::libcore up to ns-3.42 and ns3::core from 3.43.
foreach(module core network internet traffic-control point-to-point applications stats)
  if(TARGET ns3::lib${module})
    set(lib${module} ns3::lib${module})
  elseif(TARGET ns3::${module})
    set(lib${module} ns3::${module})
  else()
    message(FATAL_ERROR "ai-fabric: the installed ns-3 has no '${module}' module target")
  endif()
endforeach()

# Debian's ns-3 is a release build with logging compiled out; the module's own
# code gets logging and assertions in a debug build.
set(AI_FABRIC_DEBUG_DEFINITIONS "$<$<CONFIG:Debug>:NS3_LOG_ENABLE;NS3_ASSERT_ENABLE>")

enable_testing()
# Debian's matplotlib is installed for /usr/bin/python3, which may not be the
# first python3 on PATH.
if(EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)

# Public headers are reachable as "ns3/<name>.h", as inside an ns-3 tree.
set(AI_FABRIC_INCLUDE_DIR ${CMAKE_BINARY_DIR}/include)

function(ai_fabric_write_module_header libname headers)
  set(text "// Generated: includes every public header of the ${libname} module.\n")
  string(APPEND text "#ifndef AI_FABRIC_MODULE_H\n#define AI_FABRIC_MODULE_H\n")
  foreach(header ${headers})
    get_filename_component(name ${header} NAME)
    string(APPEND text "#include \"ns3/${name}\"\n")
  endforeach()
  string(APPEND text "#endif\n")
  file(WRITE ${AI_FABRIC_INCLUDE_DIR}/ns3/${libname}-module.h.tmp "${text}")
  configure_file(${AI_FABRIC_INCLUDE_DIR}/ns3/${libname}-module.h.tmp
                 ${AI_FABRIC_INCLUDE_DIR}/ns3/${libname}-module.h COPYONLY)
endfunction()

function(build_lib)
  cmake_parse_arguments(
    BLIB "IGNORE_PCH" "LIBNAME"
    "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK;TEST_SOURCES;DEPRECATED_HEADER_FILES;MODULE_ENABLED_FEATURES;PRIVATE_HEADER_FILES"
    ${ARGN})
  foreach(header ${BLIB_HEADER_FILES} ${BLIB_PRIVATE_HEADER_FILES})
    get_filename_component(name ${header} NAME)
    configure_file(${header} ${AI_FABRIC_INCLUDE_DIR}/ns3/${name} COPYONLY)
  endforeach()
  ai_fabric_write_module_header(${BLIB_LIBNAME} "${BLIB_HEADER_FILES}")

  add_library(${BLIB_LIBNAME} SHARED ${BLIB_SOURCE_FILES} ${BLIB_HEADER_FILES})
  target_include_directories(${BLIB_LIBNAME} PUBLIC ${AI_FABRIC_INCLUDE_DIR})
  target_link_libraries(${BLIB_LIBNAME} PUBLIC ${BLIB_LIBRARIES_TO_LINK})
  target_compile_definitions(${BLIB_LIBNAME} PRIVATE NS3_MODULE_COMPILATION
                                                     PUBLIC "${AI_FABRIC_DEBUG_DEFINITIONS}")
  # As ns-3's own build does; a missing return is an error (it is undefined
  # behaviour that the optimiser turns into anything).
  target_compile_options(${BLIB_LIBNAME} PRIVATE -Wall -Werror=return-type)
  set(lib${BLIB_LIBNAME} ${BLIB_LIBNAME} PARENT_SCOPE)
  set(lib${BLIB_LIBNAME} ${BLIB_LIBNAME})
  set(AI_FABRIC_TEST_SOURCES ${BLIB_TEST_SOURCES} PARENT_SCOPE)
  set(AI_FABRIC_LIBRARIES_TO_LINK ${BLIB_LIBRARIES_TO_LINK} PARENT_SCOPE)

  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/examples/CMakeLists.txt)
    add_subdirectory(examples)
  endif()
endfunction()

function(build_lib_example)
  cmake_parse_arguments(BLIB_EXAMPLE "IGNORE_PCH" "NAME" "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK"
                        ${ARGN})
  add_executable(${BLIB_EXAMPLE_NAME} ${BLIB_EXAMPLE_SOURCE_FILES})
  target_link_libraries(${BLIB_EXAMPLE_NAME} PRIVATE ${lib${BLIB_LIBNAME}}
                                                     ${BLIB_EXAMPLE_LIBRARIES_TO_LINK})
  target_compile_options(${BLIB_EXAMPLE_NAME} PRIVATE -Wall -Werror=return-type)
  set_target_properties(${BLIB_EXAMPLE_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                                        ${CMAKE_BINARY_DIR}/examples)
endfunction()

function(ai_fabric_add_out_of_tree_tests)
  cmake_parse_arguments(AFT "" "" "GTEST_SOURCES" ${ARGN})

  # ns-3 TestSuites register themselves from static objects: compiling them into
  # the runner keeps them (a shared test library could be dropped by --as-needed).
  add_executable(ai-fabric-test-runner scripts/test-runner.cc ${AI_FABRIC_TEST_SOURCES})
  target_link_libraries(ai-fabric-test-runner PRIVATE ai-fabric ${AI_FABRIC_LIBRARIES_TO_LINK})
  # NS_TEST_SOURCEDIR: where suites find their data (test/data), from any directory.
  target_compile_definitions(ai-fabric-test-runner
                             PRIVATE NS_TEST_SOURCEDIR="${CMAKE_SOURCE_DIR}/test")
  target_compile_options(ai-fabric-test-runner PRIVATE -Wall -Werror=return-type)
  set(suites)
  foreach(source ${AI_FABRIC_TEST_SOURCES})
    file(STRINGS ${source} lines REGEX "TestSuite\\(\"ai-fabric-[a-z0-9-]+\"")
    foreach(line ${lines})
      string(REGEX MATCH "ai-fabric-[a-z0-9-]+" suite "${line}")
      list(APPEND suites ${suite})
    endforeach()
  endforeach()
  foreach(suite ${suites})
    add_test(NAME ${suite} COMMAND ai-fabric-test-runner --suite=${suite} --verbose)
  endforeach()
  # The runner's own list must match what was registered above, so a suite the
  # scan missed cannot go silently unrun.
  list(SORT suites)
  string(REPLACE ";" "," suite_csv "${suites}")
  add_test(NAME ai-fabric-suite-registration
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-suite-list.py
                   $<TARGET_FILE:ai-fabric-test-runner> "${suite_csv}")

  # GoogleTest: pure logic and death tests of bad input.
  find_package(GTest REQUIRED)
  include(GoogleTest)
  add_executable(ai-fabric-gtest ${AFT_GTEST_SOURCES})
  target_link_libraries(ai-fabric-gtest PRIVATE ai-fabric ${AI_FABRIC_LIBRARIES_TO_LINK}
                                                GTest::gtest GTest::gtest_main)
  gtest_discover_tests(ai-fabric-gtest DISCOVERY_TIMEOUT 60)

  # The examples test.py runs as regression tests in an ns-3 tree.
  execute_process(
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/examples-to-run.py --list
            ${CMAKE_SOURCE_DIR}/test/examples-to-run.py
    OUTPUT_VARIABLE example_lines OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                                         ${CMAKE_SOURCE_DIR}/test/examples-to-run.py)
  string(REPLACE "\n" ";" example_lines "${example_lines}")
  foreach(example_line ${example_lines})
    separate_arguments(example_args UNIX_COMMAND "${example_line}")
    list(GET example_args 0 example_name)
    list(REMOVE_AT example_args 0)
    string(REGEX REPLACE "[^A-Za-z0-9.]+" "-" test_id "${example_line}")
    string(REGEX REPLACE "-$" "" test_id "${test_id}")
    add_test(NAME ai-fabric-example-${test_id}
             COMMAND ${CMAKE_BINARY_DIR}/examples/${example_name} ${example_args}
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  endforeach()

  # Bad input the examples must refuse (exit status 1, nothing run, a message naming
  # the option and its value): test/examples-to-refuse.py, one test an entry.
  set(refusals ${CMAKE_SOURCE_DIR}/test/examples-to-refuse.py)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-refusal.py --list ${refusals}
    OUTPUT_VARIABLE refusal_lines OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${refusals})
  string(REPLACE "\n" ";" refusal_lines "${refusal_lines}")
  set(refusal_index 0)
  foreach(refusal_line ${refusal_lines})
    string(REGEX REPLACE "[^A-Za-z0-9.]+" "-" test_id "${refusal_line}")
    string(REGEX REPLACE "-$" "" test_id "${test_id}")
    add_test(NAME ai-fabric-refusal-${test_id}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-refusal.py ${refusals}
                     ${refusal_index} ${CMAKE_BINARY_DIR}/examples
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    math(EXPR refusal_index "${refusal_index} + 1")
  endforeach()

  # Runs in which nothing can progress (every queue pair failed): each must end by
  # itself and say why (test/examples-to-stall.py, one test an entry).
  set(stalls ${CMAKE_SOURCE_DIR}/test/examples-to-stall.py)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-stalled-run.py --list ${stalls}
    OUTPUT_VARIABLE stall_lines OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${stalls})
  string(REPLACE "\n" ";" stall_lines "${stall_lines}")
  set(stall_index 0)
  foreach(stall_line ${stall_lines})
    string(REGEX REPLACE "--ns3::RoceNetDevice::ReceiveErrorModel=[^ ]*" "lose-all" stall_id
                         "${stall_line}")
    string(REGEX REPLACE "[^A-Za-z0-9.]+" "-" stall_id "${stall_id}")
    string(REGEX REPLACE "-$" "" stall_id "${stall_id}")
    add_test(NAME ai-fabric-stall-${stall_id}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-stalled-run.py ${stalls}
                     ${stall_index} ${CMAKE_BINARY_DIR}/examples
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    set_tests_properties(ai-fabric-stall-${stall_id} PROPERTIES TIMEOUT 400)
    math(EXPR stall_index "${stall_index} + 1")
  endforeach()

  # Every option of every example given bad values of its kind: each must be
  # refused (exit status 1, nothing run, the option named); one test an example.
  file(GLOB example_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/examples/*.cc)
  foreach(example_source ${example_sources})
    get_filename_component(example_name ${example_source} NAME_WE)
    add_test(NAME ai-fabric-bad-values-${example_name}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-bad-values.py
                     ${CMAKE_BINARY_DIR}/examples ${example_name}
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  endforeach()

  # Style: every C++ file formatted with ns-3's .clang-format.
  find_program(AI_FABRIC_CLANG_FORMAT NAMES clang-format-14 clang-format REQUIRED)
  file(GLOB_RECURSE cxx_files CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/model/*.cc
       ${CMAKE_SOURCE_DIR}/model/*.h ${CMAKE_SOURCE_DIR}/helper/*.cc
       ${CMAKE_SOURCE_DIR}/helper/*.h ${CMAKE_SOURCE_DIR}/examples/*.cc
       ${CMAKE_SOURCE_DIR}/examples/*.h
       ${CMAKE_SOURCE_DIR}/test/*.cc ${CMAKE_SOURCE_DIR}/test/*.h ${CMAKE_SOURCE_DIR}/scripts/*.cc)
  add_test(NAME ai-fabric-format
           COMMAND ${AI_FABRIC_CLANG_FORMAT} --dry-run --Werror --style=file ${cxx_files}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})

  # Every trace source names a signature typedef that exists.
  add_test(NAME ai-fabric-trace-signatures
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-trace-signatures.py
                   ${CMAKE_SOURCE_DIR})

  # wscript-compat/wscript must list the same files as CMakeLists.txt.
  add_test(NAME ai-fabric-wscript-lists
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-wscript-lists.py
                   ${CMAKE_SOURCE_DIR})

  # Layering: no file under model/ includes a header of helper/.
  add_test(NAME ai-fabric-layering
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-layering.py
                   ${CMAKE_SOURCE_DIR})

  # The test suites spell ns-3's test enums so that every supported release
  # compiles them (3.42 scoped them).
  add_test(NAME ai-fabric-test-enums
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-test-enums.py
                   ${CMAKE_SOURCE_DIR})

  # README.md quotes examples/first-cluster.cc as it is (the example itself runs
  # from test/examples-to-run.py).
  add_test(NAME ai-fabric-readme-program
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-readme-program.py
                   ${CMAKE_SOURCE_DIR})

  # Doxygen runs over the module without a warning (doxygen is installed by
  # scripts/ai-fabric; the test fails if it is missing).
  add_test(NAME ai-fabric-doxygen
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-doxygen.py
                   ${CMAKE_SOURCE_DIR})

  # Reproducibility: a result file re-run from its runRecord gives the same
  # results (scripts/rerun-result.py), for a fabric example and a workload one.
  set(rerun ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/rerun-result.py)
  add_test(NAME ai-fabric-rerun-fabric-incast
           COMMAND sh -c "examples/fabric-incast --fabric=ethernet --transport=rdma \
--senders=3 --messageSize=100001 --ns3::DcqcnCongestionControl::MinRate=2Gbps \
--json=rerun/fabric-incast.json >/dev/null && ${rerun} rerun/fabric-incast.json \
--program examples/fabric-incast"
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  add_test(NAME ai-fabric-rerun-data-parallel
           COMMAND sh -c "examples/data-parallel --gradientBytes=8M --bucketBytes=2M \
--iterations=2 --RngRun=3 --resultsDir=rerun >/dev/null && \
${rerun} rerun/data-parallel-scheduled.json --program examples/data-parallel"
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  # The same with an error model given as an attribute default (the run record
  # writes it as its TypeId and attributes, its draws follow --RngRun).
  add_test(NAME ai-fabric-rerun-error-model-fabric-permutation
           COMMAND sh -c "examples/fabric-permutation --fabric=ethernet --transport=rdma \
--leaves=2 --hostsPerLeaf=3 --spines=2 --messageSize=250000 \
'--ns3::RoceNetDevice::ReceiveErrorModel=ns3::RateErrorModel[ErrorRate=0.004|ErrorUnit=ERROR_UNIT_PACKET]' \
--RngRun=4 --json=rerun/fabric-permutation-error-model.json >/dev/null && \
${rerun} rerun/fabric-permutation-error-model.json --program examples/fabric-permutation"
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  add_test(NAME ai-fabric-rerun-error-model-data-parallel
           COMMAND sh -c "examples/data-parallel --gradientBytes=4M --bucketBytes=1M \
--iterations=1 '--ns3::RoceNetDevice::ReceiveErrorModel=ns3::RateErrorModel[ErrorRate=0.002|ErrorUnit=ERROR_UNIT_PACKET]' \
--RngRun=5 --resultsDir=rerun/error-model \
>/dev/null && ${rerun} rerun/error-model/data-parallel-scheduled.json \
--program examples/data-parallel"
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/rerun)

  # A run depends on its seed whatever the order of its options (an error model
  # given before --RngRun follows it), and packets error models take are counted by
  # place in the examples' totals, conservation holding.
  add_test(NAME ai-fabric-random-options-order
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-random-options.py
                   ${CMAKE_BINARY_DIR}/examples
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  add_test(NAME ai-fabric-error-model-drops
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-error-model-drops.py
                   ${CMAKE_BINARY_DIR}/examples
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})

  # What the examples' results show a user (scripts/check-example-results.py): one
  # test a case.
  execute_process(
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-example-results.py --list
    OUTPUT_VARIABLE result_cases OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  string(REPLACE "\n" ";" result_cases "${result_cases}")
  foreach(result_case ${result_cases})
    add_test(NAME ai-fabric-results-${result_case}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-example-results.py
                     ${CMAKE_BINARY_DIR}/examples ${result_case}
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                                         ${CMAKE_SOURCE_DIR}/scripts/check-example-results.py)

  # The flagship's results at a reduced size: schema, conservation, the scheduled
  # fabric's drops, idle fabrics against ideal, and the same files for any --jobs.
  add_test(NAME ai-fabric-comparison-results
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-comparison-results.py
                   ${CMAKE_BINARY_DIR}/examples/fabric-comparison
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})

  # ctest -j starts the costliest tests first, but a fresh build has no timings of
  # its own: without these, the longest tests (seconds under the sanitizers, about
  # ten times their release time) start last and run alone at the end.
  set_tests_properties(ai-fabric-comparison-results PROPERTIES COST 146)
  set_tests_properties(ai-fabric-collectives PROPERTIES COST 137)
  set_tests_properties(ai-fabric-scheduled-flow-control PROPERTIES COST 112)
  set_tests_properties(ai-fabric-tenants PROPERTIES COST 50)
  set_tests_properties(ai-fabric-trace-replay PROPERTIES COST 47)
endfunction()
