# Protocol code from XML, by wayland-scanner: never written by hand.
#
#   uda_wayland_protocol(<target> <xml> <client|server>)
#
# adds <name>-{client,server}-protocol.h and <name>-protocol.c (the
# interfaces) to <target>, and their folder to its include path.
find_package(PkgConfig REQUIRED)
pkg_check_modules(UDA_WAYLAND_SCANNER REQUIRED wayland-scanner)
pkg_get_variable(UDA_WAYLAND_SCANNER wayland-scanner wayland_scanner)
pkg_check_modules(UDA_WAYLAND_PROTOCOLS REQUIRED wayland-protocols)
pkg_get_variable(UDA_WAYLAND_PROTOCOLS_DIR wayland-protocols pkgdatadir)
# uda's own protocol (docs/wayland.md), used by both sides of the tree.
set(UDA_ALLOCATION_PROTOCOL ${CMAKE_CURRENT_LIST_DIR}/../wayland/protocol/uda-allocation-v1.xml)

function(uda_wayland_protocol target xml side)
  get_filename_component(_name ${xml} NAME_WE)
  set(_dir ${CMAKE_CURRENT_BINARY_DIR}/protocols)
  set(_header ${_dir}/${_name}-${side}-protocol.h)
  set(_code ${_dir}/${_name}-protocol.c)
  add_custom_command(
    OUTPUT ${_header}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_dir}
    COMMAND ${UDA_WAYLAND_SCANNER} ${side}-header ${xml} ${_header}
    DEPENDS ${xml}
    COMMENT "wayland-scanner: ${_name} ${side} header")
  # One interface file per folder, whichever side asks first.
  get_property(_made DIRECTORY PROPERTY UDA_WAYLAND_PROTOCOL_CODE)
  if(NOT _code IN_LIST _made)
    add_custom_command(
      OUTPUT ${_code}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_dir}
      COMMAND ${UDA_WAYLAND_SCANNER} private-code ${xml} ${_code}
      DEPENDS ${xml}
      COMMENT "wayland-scanner: ${_name} interfaces")
    set_property(DIRECTORY APPEND PROPERTY UDA_WAYLAND_PROTOCOL_CODE ${_code})
  endif()
  target_sources(${target} PRIVATE ${_header} ${_code})
  target_include_directories(${target} PRIVATE ${_dir})
endfunction()
