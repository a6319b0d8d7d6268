# Helpers shared by every module's CMakeLists.txt.

# kg_unit_test(NAME name SOURCES a.c b.c LIBS kgate_x ...) : a cmocka test registered with ctest.
function(kg_unit_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} ${CMOCKA_LINK_LIBRARIES})
  target_include_directories(${T_NAME} PRIVATE ${CMOCKA_INCLUDE_DIRS} ${CMAKE_SOURCE_DIR}/tests)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "KGATE_SOURCE_DIR=${CMAKE_SOURCE_DIR};KGATE_BINARY_DIR=${CMAKE_BINARY_DIR}")
  if(T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  endif()
endfunction()

pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)

# kg_fuzz_target(NAME fuzz_x SOURCES fuzz_x.c LIBS kgate_x ...) : a libFuzzer binary (KGATE_FUZZ builds only).
function(kg_fuzz_target)
  cmake_parse_arguments(F "" "NAME" "SOURCES;LIBS" ${ARGN})
  add_executable(${F_NAME} ${F_SOURCES})
  target_link_libraries(${F_NAME} PRIVATE ${F_LIBS})
  target_link_options(${F_NAME} PRIVATE -fsanitize=fuzzer)
endfunction()
