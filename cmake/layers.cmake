# One-way layers, enforced by the compiler.
#
# Each product library sees only the directories of its own layer and of the layers it depends on:
# mpamd_layer() builds a private include root under ${CMAKE_BINARY_DIR}/layers/<lib>/ holding a
# symbolic link per visible directory (core/base -> <source>/core/base, ...). Sources include headers
# by their repository path ("core/base/error.h"), so an include of a layer above fails to compile
# with "No such file or directory". The repository root itself is never on a product include path.

# mpamd_layer(NAME DIRS dir... [DEPS lib...] [LIBS imported...] SOURCES file...)
function(mpamd_layer name)
  cmake_parse_arguments(L "" "" "DIRS;DEPS;LIBS;SOURCES" ${ARGN})
  set(visible ${L_DIRS})
  foreach(dep IN LISTS L_DEPS)
    get_property(dep_dirs GLOBAL PROPERTY MPAMD_LAYER_DIRS_${dep})
    list(APPEND visible ${dep_dirs})
  endforeach()
  list(REMOVE_DUPLICATES visible)
  set_property(GLOBAL PROPERTY MPAMD_LAYER_DIRS_${name} ${visible})
  set_property(GLOBAL PROPERTY MPAMD_LAYER_OWN_${name} ${L_DIRS})

  set(root ${CMAKE_BINARY_DIR}/layers/${name})
  file(REMOVE_RECURSE ${root})
  foreach(dir IN LISTS visible)
    get_filename_component(parent ${root}/${dir} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${dir} ${root}/${dir} SYMBOLIC)
  endforeach()

  add_library(${name} STATIC ${L_SOURCES})
  target_include_directories(${name} PRIVATE ${root})
  target_link_libraries(${name} PUBLIC ${L_DEPS} ${L_LIBS})
  set_property(GLOBAL APPEND PROPERTY MPAMD_LAYERS ${name})
endfunction()

# mpamd_layer_includes(TARGET LAYER): gives an executable the include root of LAYER's view.
function(mpamd_layer_includes target layer)
  target_include_directories(${target} PRIVATE ${CMAKE_BINARY_DIR}/layers/${layer})
endfunction()

# Every public header, compiled alone and included twice, within the view of the layer that owns it:
# a header that needs an include it does not make, or whose guard is broken, fails the build.
function(mpamd_header_check)
  get_property(layers GLOBAL PROPERTY MPAMD_LAYERS)
  set(all_checks)
  foreach(layer IN LISTS layers)
    get_property(own GLOBAL PROPERTY MPAMD_LAYER_OWN_${layer})
    set(checks)
    foreach(dir IN LISTS own)
      file(GLOB headers RELATIVE ${CMAKE_SOURCE_DIR} CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${dir}/*.h)
      foreach(header IN LISTS headers)
        string(MAKE_C_IDENTIFIER ${header} id)
        set(check ${CMAKE_BINARY_DIR}/header_check/${id}.c)
        file(CONFIGURE OUTPUT ${check}
             CONTENT "/* generated: ${header} must compile alone and twice */\n#include \"${header}\"\n#include \"${header}\"\n")
        list(APPEND checks ${check})
      endforeach()
    endforeach()
    if(checks)
      add_library(header_check_${layer} OBJECT ${checks})
      target_include_directories(header_check_${layer} PRIVATE ${CMAKE_BINARY_DIR}/layers/${layer})
      target_link_libraries(header_check_${layer} PRIVATE ${layer})
      # An empty translation unit is what we want here.
      target_compile_options(header_check_${layer} PRIVATE -Wno-pedantic)
      list(APPEND all_checks header_check_${layer})
    endif()
  endforeach()
  add_custom_target(header_check ALL)
  add_dependencies(header_check ${all_checks})
endfunction()
