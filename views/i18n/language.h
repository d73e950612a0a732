#pragma once

#include <QString>
#include <QStringList>

#include <string>

namespace attnlab {

struct Crossover;

// The UI languages: "en" (the source texts) and "zh_CN" (简体中文, assets/translations/attnlab_zh_CN.ts).
QStringList uiLanguages();
// "en" or "zh_CN" for a language or locale name ("zh", "zh_CN.UTF-8", "zh-Hans", "en_GB", and "C" or
// "POSIX", the untranslated texts); empty when none of the UI languages matches, Traditional Chinese
// (zh_TW, zh_HK, zh_MO, zh-Hant) included.
QString matchUiLanguage(const QString& name);
// The language's name in itself: "English", "简体中文".
QString languageNativeName(const QString& language);

// The language chosen in View → Language (QSettings "ui/language"); empty when never chosen.
QString storedLanguage();
void storeLanguage(const QString& language);
// The language to start in: `requested` (--lang) when given, else the stored choice when `useStored`,
// else the system locale's (LANG, LC_ALL, LC_MESSAGES): Chinese locales give "zh_CN", others "en".
QString startupLanguage(const QString& requested, bool useStored);

// Installs the translations of `language` (AttnLab's own and Qt's standard dialogs) in the running
// application, replacing earlier ones. Widgets built before keep their texts: the window is built after
// this (a change from the menu applies at the next start). False when `language` has no translation.
bool installLanguage(const QString& language);
// The language installed last ("en" before any).
QString currentLanguage();

// A text of the core registry (variant name, family, summary, parameter description) in the UI
// language; core itself has no Qt, and lupdate learns these texts through `attnlab variants --json`.
QString coreText(const std::string& text);
// crossoverStatement() (core/analysis/crossovers.h) in the UI language: "n > 2hd = 1536", "for every n", …
QString crossoverText(const Crossover& crossover);

} // namespace attnlab
