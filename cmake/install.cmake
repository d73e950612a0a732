# What `cmake --install` puts in place besides the executable, and the Debian package CPack builds from
# it: desktop entry, hicolor icon and AppStream metainfo, all named by the application id.
set(ATTNLAB_APP_ID org.attnlab.AttnLab)
install(FILES ${PROJECT_SOURCE_DIR}/assets/${ATTNLAB_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/assets/attnlab.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
        RENAME ${ATTNLAB_APP_ID}.svg)
install(FILES ${PROJECT_SOURCE_DIR}/assets/${ATTNLAB_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attnlab)
set(CPACK_PACKAGE_VENDOR "AttnLab")
set(CPACK_PACKAGE_CONTACT "AttnLab developers <attnlab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "See and measure how attention mechanisms cost what they cost")
set(CPACK_PACKAGE_DESCRIPTION "Runs every classic attention variant on the CPU and shows patterns, measured timing \
curves and FLOP breakdowns; every figure can also be drawn from the command line.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# The Depends line comes from the libraries the executable really links (dpkg-shlibdeps).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Fonts and Qt's own Chinese strings are data, not linked libraries: the ImGui lab's TrueType font, the
# Chinese UI's glyphs and the translated standard dialogs.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-dejavu-core, fonts-wqy-microhei | fonts-noto-cjk, qt6-translations-l10n")
# The Python module (docs/python.md) is in the same package: it is built for one Python 3 version and
# hands out NumPy arrays.
if(TARGET attnlab_python)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${CPACK_DEBIAN_PACKAGE_RECOMMENDS}, python3 (>= ${ATTNLAB_PYTHON_VERSION}), python3-numpy")
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
include(CPack)
