# onnxc_add_plugin(name source...): builds the onnxc plugin module
# name.so into ${CMAKE_BINARY_DIR}/plugins.  The module sees only
# <onnxc/plugin.h> (target onnxc::plugin_sdk); hidden visibility leaves
# the descriptor as its one export, and --no-undefined proves at link time
# that it takes no symbol from onnxc.  Install it with
#   install(TARGETS name LIBRARY DESTINATION ${ONNXC_PLUGIN_DIR})
# or point ONNXC_PLUGIN_PATH / --load-plugin at it.
function(onnxc_add_plugin name)
  if(NOT ARGN)
    message(FATAL_ERROR "onnxc_add_plugin(${name}): no sources given")
  endif()
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE onnxc::plugin_sdk)
  target_compile_options(${name} PRIVATE -fvisibility=hidden)
  # clang links its sanitizer runtimes into the executable only, so a
  # sanitized module's __asan_* symbols come from onnxc at load time
  if(NOT (ONNXC_SANITIZE AND CMAKE_C_COMPILER_ID MATCHES "Clang"))
    target_link_options(${name} PRIVATE -Wl,--no-undefined)
  endif()
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/plugins)
endfunction()
