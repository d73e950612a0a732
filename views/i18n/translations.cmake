# The UI's translations (Qt Linguist). lrelease compiles assets/translations/*.ts at build time into
# .qm files embedded as resources under :/i18n/. After adding or changing user-visible strings, refresh
# the .ts files with one command:
#     cmake --build build/dev --target update_translations
# It extracts tr()/translate() strings from views/ and, through `attnlab variants --json`, the core
# registry's texts (variant names, families, summaries, parameter descriptions: context "CoreText"),
# then merges them into the .ts files; translate the new entries (Qt Linguist or a text editor) and
# commit. tests/gui/test_translation.cpp lists any string left untranslated.
set(ATTNLAB_TS_FILES ${PROJECT_SOURCE_DIR}/assets/translations/attnlab_zh_CN.ts)
set(ATTNLAB_CORE_STRINGS ${CMAKE_CURRENT_BINARY_DIR}/i18n/core_strings.cpp)

qt_add_lupdate(attnlab_views TS_FILES ${ATTNLAB_TS_FILES}
               SOURCES ${ATTNLAB_VIEW_SOURCES} ${ATTNLAB_CORE_STRINGS}
               OPTIONS -no-obsolete -locations none)
qt_add_lrelease(attnlab_views TS_FILES ${ATTNLAB_TS_FILES} QM_FILES_OUTPUT_VARIABLE ATTNLAB_QM_FILES)
qt_add_resources(attnlab_views attnlab_translations PREFIX /i18n BASE ${CMAKE_CURRENT_BINARY_DIR} FILES ${ATTNLAB_QM_FILES})

# The core registry's user-visible texts as QT_TRANSLATE_NOOP lines, only for lupdate to read.
add_custom_command(OUTPUT ${ATTNLAB_CORE_STRINGS}
                   COMMAND attnlab variants --json > ${CMAKE_CURRENT_BINARY_DIR}/i18n/variants.json
                   COMMAND ${CMAKE_COMMAND} -DIN_FILE=${CMAKE_CURRENT_BINARY_DIR}/i18n/variants.json
                           -DOUT_FILE=${ATTNLAB_CORE_STRINGS} -P ${CMAKE_CURRENT_SOURCE_DIR}/i18n/core_strings.cmake
                   DEPENDS attnlab ${CMAKE_CURRENT_SOURCE_DIR}/i18n/core_strings.cmake
                   COMMENT "Listing the core registry's texts for lupdate")
add_custom_target(attnlab_core_strings DEPENDS ${ATTNLAB_CORE_STRINGS})
add_dependencies(attnlab_views_lupdate attnlab_core_strings)
