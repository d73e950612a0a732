#include "views/shell/session_file.h"

#include "core/decode/kv_cache.h"
#include "core/errors.h"
#include "core/io/npy_header.h"
#include "core/io/npy_io.h"
#include "core/io/output_file.h"
#include "core/patterns/token_grid.h"
#include "core/registry.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <variant>

namespace attnlab {

namespace {

constexpr auto kFormat = "attnlab-session";
constexpr int kVersion = 1;

QJsonObject overridesToJson(const ParamOverrides& params) {
    QJsonObject json;
    for (const auto& [key, value] : params) json.insert(QString::fromStdString(key), QString::fromStdString(value));
    return json;
}

QJsonValue toJson(const std::string& value) { return QString::fromStdString(value); }
QJsonValue toJson(const ParamOverrides& value) { return overridesToJson(value); }
QJsonValue toJson(std::int64_t value) { return static_cast<qint64>(value); }
QJsonValue toJson(int value) { return value; }
QJsonValue toJson(bool value) { return value; }
QJsonValue toJson(double value) { return value; }
QJsonValue toJson(std::uint64_t value) { return QString::number(value); }
QJsonValue toJson(InputSource value) { return QString::fromStdString(inputSourceName(value)); }
QJsonValue toJson(TimingMode value) { return QString::fromStdString(timingModeName(value)); }
template <class Item>
QJsonValue toJson(const std::vector<Item>& values) {
    QJsonArray array;
    for (const Item& value : values) array.append(toJson(value));
    return array;
}

struct IntegerRange {
    std::int64_t low;
    std::int64_t high;
};

// The limits the panel and `attnlab figure` accept; head is checked against heads after reading.
IntegerRange integerRange(const char* key) {
    static const std::map<std::string, IntegerRange, std::less<>> ranges = {
        {"n", {1, 65536}}, {"d", {1, 4096}}, {"heads", {1, 256}}, {"head", {0, 255}}, {"layers", {1, 64}},
        {"timing_max_n", {64, 65536}}, {"kv_heads", {0, 256}}, {"model_layers", {1, 1024}},
        {"memory_budget", {0, std::int64_t{1} << 50}}, {"queries", {0, 65536}}, {"preset_n", {0, 65536}},
        {"grid_query", {-1, 65535}}, {"block_view", {0, 2147483647}},
        {"block_cost", {1, 2147483647}}};
    const auto found = ranges.find(std::string_view(key));
    if (found == ranges.end()) throw std::logic_error(std::string("session: no range for integer '") + key + "'");
    return found->second;
}

// A JSON number as written: whole numbers in full (4294967297), others in their shortest form (1e+300, 256.7).
std::string numberText(double number) {
    if (number == std::floor(number) && std::fabs(number) < 1e18) return std::to_string(static_cast<long long>(number));
    return QString::number(number, 'g', QLocale::FloatingPointShortest).toStdString();
}

class JsonReader {
public:
    explicit JsonReader(const QJsonObject& json) : m_json(json) {}

    void read(const char* key, std::string& target) const {
        if (const auto value = field(key, QJsonValue::String)) target = text(key, *value);
    }
    void read(const char* key, bool& target) const {
        if (const auto value = field(key, QJsonValue::Bool)) target = value->toBool();
    }
    void read(const char* key, double& target) const {
        if (const auto value = field(key, QJsonValue::Double)) target = value->toDouble();
    }
    void read(const char* key, std::int64_t& target) const { readInteger(key, target); }
    void read(const char* key, int& target) const { readInteger(key, target); }
    // Seeds are 64-bit: stored as text, which keeps every bit (JSON numbers are doubles).
    void read(const char* key, std::uint64_t& target) const {
        const auto value = field(key, QJsonValue::String);
        if (!value) return;
        bool ok = false;
        target = value->toString().toULongLong(&ok);
        if (!ok)
            throw InputError(std::string("session: '") + key + "' is not an unsigned integer: '" +
                             printableText(value->toString().left(64).toStdString()) + "'");
    }
    void read(const char* key, InputSource& target) const {
        if (const auto value = field(key, QJsonValue::String)) target = inputSourceFromName(printableText(text(key, *value)));
    }
    void read(const char* key, TimingMode& target) const {
        if (const auto value = field(key, QJsonValue::String)) target = timingModeFromName(printableText(text(key, *value)));
    }
    void read(const char* key, ParamOverrides& target) const {
        if (const auto value = field(key, QJsonValue::Object)) target = overrides(key, value->toObject());
    }
    void read(const char* key, std::vector<std::string>& target) const {
        const auto value = field(key, QJsonValue::Array);
        if (!value) return;
        target.clear();
        requireCount(key, value->toArray().size(), kMaxSessionListItems);
        for (const auto& item : value->toArray()) {
            if (!item.isString()) throw InputError(std::string("session: '") + key + "' must hold strings");
            target.push_back(text(key, item));
        }
    }
    void read(const char* key, std::vector<ParamOverrides>& target) const {
        const auto value = field(key, QJsonValue::Array);
        if (!value) return;
        target.clear();
        requireCount(key, value->toArray().size(), kMaxSessionListItems);
        for (const auto& item : value->toArray()) {
            if (!item.isObject()) throw InputError(std::string("session: '") + key + "' must hold objects");
            target.push_back(overrides(key, item.toObject()));
        }
    }

private:
    // JSON numbers are doubles: a value is taken only when it is a whole number inside the key's range
    // (checked on the double, so 4294967297 is refused rather than wrapped to 1, 1e300 and 256.7 are
    // named as given).
    template <class Integer>
    void readInteger(const char* key, Integer& target) const {
        const auto value = field(key, QJsonValue::Double);
        if (!value) return;
        const double number = value->toDouble();
        const IntegerRange range = integerRange(key);
        if (number != std::floor(number))
            throw InputError(std::string("session: '") + key + "' = " + numberText(number) + " is not a whole number");
        if (number < static_cast<double>(range.low) || number > static_cast<double>(range.high))
            throw InputError(std::string("session: '") + key + "' = " + numberText(number) + " is out of range [" +
                             std::to_string(range.low) + ", " + std::to_string(range.high) + "]");
        target = static_cast<Integer>(number);
    }
    std::optional<QJsonValue> field(const char* key, QJsonValue::Type type) const {
        const QJsonValue value = m_json.value(QLatin1String(key));
        if (value.isUndefined()) return std::nullopt;
        if (value.type() != type) throw InputError(std::string("session: '") + key + "' has the wrong type");
        return value;
    }
    static ParamOverrides overrides(const char* key, const QJsonObject& json) {
        requireCount(key, json.size(), kMaxSessionParams);
        ParamOverrides params;
        for (auto it = json.begin(); it != json.end(); ++it) {
            if (!it.value().isString()) throw InputError(std::string("session: values of '") + key + "' must be strings");
            params[text(key, it.key())] = text(key, it.value());
        }
        return params;
    }
    static std::string text(const char* key, const QJsonValue& value) { return text(key, value.toString()); }
    static std::string text(const char* key, const QString& value) {
        if (value.size() > kMaxSessionText)
            throw InputError(std::string("session: a text in '") + key + "' has " + std::to_string(value.size()) +
                             " characters, more than the " + std::to_string(kMaxSessionText) + " a session may hold");
        return value.toStdString();
    }
    static void requireCount(const char* key, qsizetype count, qsizetype limit) {
        if (count > limit)
            throw InputError(std::string("session: '") + key + "' has " + std::to_string(count) + " entries, more than the " +
                             std::to_string(limit) + " a session may hold");
    }

    const QJsonObject& m_json;
};

void requireRange(const char* key, std::int64_t value, std::int64_t low, std::int64_t high) {
    if (value < low || value > high)
        throw InputError(std::string("session: '") + key + "' = " + std::to_string(value) + " is out of range [" +
                         std::to_string(low) + ", " + std::to_string(high) + "]");
}

void requireKnownVariant(const char* key, const std::string& id) {
    if (!findVariant(id))
        throw InputError(std::string("session: '") + key + "' names an unknown variant '" + printableText(id.substr(0, 64)) +
                         (id.size() > 64 ? "...'" : "'"));
}

// Parameter values are left to the views, which show core's message for a combination it rejects.
void checkSettings(const LabSettings& settings) {
    requireKnownVariant("variant", settings.variant);
    for (const auto& [key, value] : {std::pair<const char*, std::int64_t>{"n", settings.n}, {"d", settings.d},
                                     {"heads", settings.heads}, {"layers", settings.layers},
                                     {"timing_max_n", settings.timingMaxN}, {"kv_heads", settings.kvHeads},
                                     {"model_layers", settings.modelLayers}, {"memory_budget", settings.memoryBudget},
                                     {"preset_n", settings.presetN}, {"grid_query", settings.gridQuery},
                                     {"queries", settings.queries}})
        requireRange(key, value, integerRange(key).low, integerRange(key).high);
    requireRange("head", settings.head, 0, settings.heads - 1);
    requireRange("queries", settings.queries, 0, settings.n);
    try {
        kvDtypeFromName(settings.kvDtype, "'kv_dtype'");
    } catch (const InputError& error) {
        throw InputError(std::string("session: ") + error.what());
    }
    if (settings.kvHeads > 0 && settings.heads % settings.kvHeads != 0)
        throw InputError("session: 'kv_heads' = " + std::to_string(settings.kvHeads) + " must divide 'heads' = " +
                         std::to_string(settings.heads));
    if (!(settings.accuracyInputScale >= kMinInputScale && settings.accuracyInputScale <= kMaxInputScale))
        throw InputError("session: 'accuracy_input_scale' = " + std::to_string(settings.accuracyInputScale) +
                         " is out of range [" + std::to_string(kMinInputScale) + ", " + std::to_string(kMaxInputScale) + "]");
    if (!(settings.fontScale >= kMinFontScale && settings.fontScale <= kMaxFontScale))
        throw InputError("session: 'font_scale' = " + std::to_string(settings.fontScale) + " is out of range [" +
                         std::to_string(kMinFontScale) + ", " + std::to_string(kMaxFontScale) + "]");
    if (!settings.compareVariants.empty()) requireRange("compare", static_cast<std::int64_t>(settings.compareVariants.size()), 2, 4);
    for (const auto& id : settings.compareVariants) requireKnownVariant("compare", id);
    if (settings.compareParams.size() > settings.compareVariants.size())
        throw InputError("session: 'compare_params' has more entries than 'compare'");
    if (settings.panelTitles.size() > std::max<std::size_t>(1, settings.compareVariants.size()))
        throw InputError("session: 'panel_titles' has more entries than there are panels");
    if (settings.panelOrders.size() > settings.compareVariants.size())
        throw InputError("session: 'panel_orders' has more entries than 'compare'");
    for (const std::string& order : settings.panelOrders)
        if (!order.empty()) try {
                if (settings.grid.empty()) throw InputError("an order needs a grid");
                makeTokenGrid(settings.grid, order);
            } catch (const InputError& error) {
                throw InputError(std::string("session: 'panel_orders': ") + error.what());
            }
    if (!settings.grid.empty() || !settings.order.empty()) {
        try { // the texts --grid and --order take; the cell count against n is the settings' own check
            if (settings.grid.empty()) throw InputError("an order needs a grid");
            makeTokenGrid(settings.grid, settings.order);
        } catch (const InputError& error) {
            throw InputError(std::string("session: 'grid'/'order': ") + error.what());
        }
    }
}

// With NPY input the files must exist and be NPY arrays (their headers are read, not their data), so a
// session naming a missing file, a directory or a text file is refused when it is opened.
void checkInputFiles(const LabSettings& settings, const std::string& where) {
    if (settings.source != InputSource::NpyFiles) return;
    if (settings.qPath.empty()) throw InputError(where + ": 'source' is npy but 'q_path' is empty");
    for (const auto& [key, path] : {std::pair<const char*, const std::string*>{"q_path", &settings.qPath},
                                    {"k_path", &settings.kPath}, {"v_path", &settings.vPath}}) {
        if (path->empty()) continue;
        try {
            inspectNpy(*path);
        } catch (const InputError& error) {
            throw InputError(where + ": '" + key + "': " + error.what());
        }
    }
}

// A session names its input files as the user wrote them: a relative path is read from the session
// file's folder (where the files travel with it), not from wherever the program was started.
void resolveInputPaths(LabSettings& settings, const QDir& sessionFolder) {
    for (std::string* path : {&settings.qPath, &settings.kPath, &settings.vPath}) {
        const QString text = QString::fromStdString(*path);
        if (!text.isEmpty() && QDir::isRelativePath(text)) *path = QDir::cleanPath(sessionFolder.filePath(text)).toStdString();
    }
}

std::string jsonKind(const QJsonValue& value) {
    switch (value.type()) {
    case QJsonValue::Null: return "null";
    case QJsonValue::Bool: return "a boolean";
    case QJsonValue::Double: return "a number";
    case QJsonValue::String: return "a string";
    case QJsonValue::Array: return "an array";
    default: return "an object";
    }
}

} // namespace

QJsonObject settingsToJson(const LabSettings& settings) {
    QJsonObject json;
    for (const SettingsField& field : settingsFields())
        json.insert(QLatin1String(field.name), std::visit([&](auto member) { return toJson(settings.*member); }, field.member));
    return json;
}

LabSettings settingsFromJson(const QJsonObject& json) {
    LabSettings settings;
    const JsonReader reader(json);
    for (const SettingsField& field : settingsFields())
        std::visit([&](auto member) { reader.read(field.name, settings.*member); }, field.member);
    checkSettings(settings);
    return settings;
}

void saveSession(const QString& path, const Session& session) {
    const QJsonObject json{{"format", kFormat}, {"version", kVersion}, {"view", session.view},
                           {"settings", settingsToJson(session.settings)}};
    writeWholeFiles({{"the session", path.toStdString(), QJsonDocument(json).toJson(QJsonDocument::Indented).toStdString()}},
                    settingsInputFiles(session.settings));
}

Session parseSession(const QByteArray& bytes, const QString& name) {
    const std::string where = "session '" + name.toStdString() + "'";
    if (bytes.size() > kMaxSessionBytes)
        throw InputError(where + " is " + std::to_string(bytes.size()) + " bytes, over the " +
                         std::to_string(kMaxSessionBytes) + "-byte limit of session files");
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    // Qt parses only an object or array at the top: a scalar is JSON too, so it is named as one.
    const QJsonDocument wrapped = QJsonDocument::fromJson("[" + bytes + "]");
    const bool isJson = error.error == QJsonParseError::NoError || wrapped.array().size() == 1;
    if (!isJson) throw InputError(where + " is not JSON: " + error.errorString().toStdString());
    const QJsonValue top = document.isObject() ? QJsonValue(document.object()) : wrapped.array().at(0);
    if (!top.isObject())
        throw InputError(where + " is JSON of the wrong shape: " + jsonKind(top) +
                         " where a session object {\"format\": \"attnlab-session\", ...} belongs");
    const QJsonObject json = document.object();
    if (json.value("format").toString() != QLatin1String(kFormat))
        throw InputError("'" + name.toStdString() + "' is not an attnlab session file");
    const QJsonValue version = json.value("version");
    if (!version.isDouble() || version.toDouble() != kVersion)
        throw InputError(where + " is not version " + std::to_string(kVersion) +
                         " (the version this attnlab reads): its 'version' is " +
                         printableText(QJsonDocument(QJsonArray{version}).toJson(QJsonDocument::Compact).mid(1).chopped(1).left(64).toStdString()));
    if (!json.value("settings").isObject()) throw InputError(where + " has no 'settings' object");
    if (!json.value("view").isUndefined() && !json.value("view").isString())
        throw InputError(where + ": 'view' has the wrong type");
    Session session;
    session.view = json.value("view").toString(session.view).left(kMaxSessionText);
    session.settings = settingsFromJson(json.value("settings").toObject());
    return session;
}

Session loadSession(const QString& path) {
    const std::string where = "session '" + path.toStdString() + "'";
    QFile file(path);
    const QFileInfo info(path);
    if (info.isDir()) throw InputError("cannot open " + where + ": it is a directory");
    if (info.exists() && !info.isFile()) throw InputError("cannot open " + where + ": not a regular file");
    if (!file.open(QIODevice::ReadOnly))
        throw InputError("cannot open " + where + ": " + file.errorString().toStdString());
    // The size is checked before reading, and the read stops one byte past the limit in case the file grows.
    if (file.size() > kMaxSessionBytes)
        throw InputError(where + " is " + std::to_string(file.size()) + " bytes, over the " +
                         std::to_string(kMaxSessionBytes) + "-byte limit of session files");
    Session session = parseSession(file.read(kMaxSessionBytes + 1), path);
    resolveInputPaths(session.settings, info.absoluteDir());
    checkInputFiles(session.settings, where);
    return session;
}

} // namespace attnlab
