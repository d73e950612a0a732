#include "views/i18n/language.h"

#include "core/analysis/crossovers.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

#include <memory>
#include <vector>

namespace attnlab {

namespace {

const QString kEnglish = QStringLiteral("en");
const QString kChinese = QStringLiteral("zh_CN");
const QString kSettingsKey = QStringLiteral("ui/language");

QString& installedLanguage() {
    static QString language = kEnglish;
    return language;
}

std::vector<std::unique_ptr<QTranslator>>& installedTranslators() {
    static std::vector<std::unique_ptr<QTranslator>> translators;
    return translators;
}

// Core texts shown through coreText() that `attnlab variants --json` (lupdate's source for the registry)
// does not print: kLayerParts' labels (core/analysis/timing_sweep.h), the fixed reach statements of
// ReachTheory and the inference figures' fixed curve label that is more than ids and numbers
// (core/analysis/inference.cpp). tests/gui/test_translation.cpp checks them against
// the registry, so a changed text shows up there.
[[maybe_unused]] constexpr const char* kOtherCoreTexts[] = {
    QT_TRANSLATE_NOOP("CoreText", "QKV projections"),
    QT_TRANSLATE_NOOP("CoreText", "attention core"),
    QT_TRANSLATE_NOOP("CoreText", "output projection"),
    QT_TRANSLATE_NOOP("CoreText", "FFN (width 4hd)"),
    QT_TRANSLATE_NOOP("CoreText", "strided: all pairs in 2 layers (Child et al. 2019: ≤ p + 1 hops, p = 2)"),
    QT_TRANSLATE_NOOP("CoreText", "longformer: all pairs in 2 layers via a global token (Beltagy et al. 2020)"),
    QT_TRANSLATE_NOOP("CoreText", "bigbird: all pairs in 2 layers via a global token (Zaheer et al. 2020)"),
    QT_TRANSLATE_NOOP("CoreText", "window + 4 sinks"),
};

} // namespace

QStringList uiLanguages() { return {kEnglish, kChinese}; }

QString matchUiLanguage(const QString& name) {
    const QString lower = name.trimmed().toLower();
    // Traditional Chinese (Taiwan, Hong Kong, Macau, zh-Hant) is another script: not zh_CN's texts.
    for (const char* traditional : {"zh_tw", "zh-tw", "zh_hk", "zh-hk", "zh_mo", "zh-mo", "zh-hant", "zh_hant"})
        if (lower.startsWith(QLatin1String(traditional))) return {};
    if (lower.startsWith(QStringLiteral("zh"))) return kChinese;
    if (lower == QStringLiteral("c") || lower == QStringLiteral("posix") || lower.startsWith(QStringLiteral("en"))) return kEnglish;
    return {};
}

QString languageNativeName(const QString& language) {
    return language == kChinese ? QStringLiteral("简体中文") : QStringLiteral("English");
}

QString storedLanguage() { return matchUiLanguage(QSettings().value(kSettingsKey).toString()); }

void storeLanguage(const QString& language) { QSettings().setValue(kSettingsKey, language); }

QString startupLanguage(const QString& requested, bool useStored) {
    if (!requested.isEmpty()) return matchUiLanguage(requested);
    if (useStored && !storedLanguage().isEmpty()) return storedLanguage();
    const QString system = matchUiLanguage(QLocale::system().name());
    return system.isEmpty() ? kEnglish : system;
}

bool installLanguage(const QString& language) {
    for (const auto& translator : installedTranslators()) QCoreApplication::removeTranslator(translator.get());
    installedTranslators().clear();
    installedLanguage() = kEnglish;
    if (language == kEnglish) return true;
    if (language != kChinese) return false;
    auto own = std::make_unique<QTranslator>();
    if (!own->load(QStringLiteral(":/i18n/attnlab_%1.qm").arg(language))) return false;
    QCoreApplication::installTranslator(own.get());
    installedTranslators().push_back(std::move(own));
    // Qt's own texts (standard buttons, file dialogs), when Debian's qt6-translations-l10n is installed.
    auto qt = std::make_unique<QTranslator>();
    if (qt->load(QStringLiteral("qtbase_%1").arg(language), QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt.get());
        installedTranslators().push_back(std::move(qt));
    }
    installedLanguage() = language;
    return true;
}

QString currentLanguage() { return installedLanguage(); }

QString coreText(const std::string& text) { return QCoreApplication::translate("CoreText", text.c_str()); }

QString crossoverText(const Crossover& crossover) {
    if (!crossover.threshold) return QCoreApplication::translate("CoreText", "never for n ≤ %1").arg(crossover.searchedTo);
    if (*crossover.threshold == 0) return QCoreApplication::translate("CoreText", "for every n");
    const QString number = QString::number(*crossover.threshold);
    return crossover.closedForm.empty() ? QStringLiteral("n > %1").arg(number)
                                        : QStringLiteral("n > %1 = %2").arg(QString::fromStdString(crossover.closedForm), number);
}

} // namespace attnlab
