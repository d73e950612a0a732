# Precompiled headers for the groups of files that each parse the same large headers: the test programs
# (GoogleTest and the standard library), the Qt test programs and the views (Qt's widget headers). A
# group's header is compiled once and loaded by each of its files, which is most of a test file's
# compile time otherwise. The headers are only added to what each file includes itself, so a file still
# compiles without them (ATTNLAB_PCH=OFF builds every file as written).
option(ATTNLAB_PCH "Precompile the headers shared by the test programs and the views" ON)

set(attnlab_pch_std_headers <algorithm> <cmath> <cstdint> <functional> <map> <memory> <optional> <sstream>
                            <string> <vector>)
set(attnlab_pch_qt_headers <QApplication> <QImage> <QPainter> <QString> <QStringList> <QWidget>)

# ccache hashes the precompiled header and may cache files built with it only when told that its
# defines and time macros are handled (ccache's documentation, "Precompiled headers").
if(ATTNLAB_PCH AND CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_SLOPPINESS=pch_defines,time_macros
                                  ${CMAKE_CXX_COMPILER_LAUNCHER})
endif()

# The views' own header, made by the library itself.
function(attnlab_precompile_view_headers target)
  if(ATTNLAB_PCH)
    target_precompile_headers(${target} PRIVATE ${attnlab_pch_std_headers} ${attnlab_pch_qt_headers})
  endif()
endfunction()

# An object library with one empty file: the target that makes a group's header.
function(attnlab_pch_owner target)
  set(anchor ${CMAKE_CURRENT_BINARY_DIR}/${target}.cpp)
  file(CONFIGURE OUTPUT ${anchor} CONTENT "// The precompiled header's own translation unit.\n")
  add_library(${target} OBJECT ${anchor})
endfunction()

# One header for a group of programs compiled with the same options: made by the first program of the
# group (`owner`) and reused by the others.
function(attnlab_precompile_test_headers target owner)
  if(NOT ATTNLAB_PCH)
    return()
  endif()
  if(target STREQUAL owner)
    target_precompile_headers(${target} PRIVATE <gtest/gtest.h> ${attnlab_pch_std_headers} ${ARGN})
  else()
    target_precompile_headers(${target} REUSE_FROM ${owner})
  endif()
endfunction()
