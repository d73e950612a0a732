#include "views/shell/session_file.h"

#include "core/errors.h"
#include "core/registry.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <algorithm>
#include <optional>
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

class JsonReader {
public:
    explicit JsonReader(const QJsonObject& json) : m_json(json) {}

    void read(const char* key, std::string& target) const {
        if (const auto value = field(key, QJsonValue::String)) target = value->toString().toStdString();
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
        if (!ok) throw InputError(std::string("session: '") + key + "' is not an unsigned integer: '" + value->toString().toStdString() + "'");
    }
    void read(const char* key, InputSource& target) const {
        if (const auto value = field(key, QJsonValue::String)) target = inputSourceFromName(value->toString().toStdString());
    }
    void read(const char* key, TimingMode& target) const {
        if (const auto value = field(key, QJsonValue::String)) target = timingModeFromName(value->toString().toStdString());
    }
    void read(const char* key, ParamOverrides& target) const {
        if (const auto value = field(key, QJsonValue::Object)) target = overrides(key, value->toObject());
    }
    void read(const char* key, std::vector<std::string>& target) const {
        const auto value = field(key, QJsonValue::Array);
        if (!value) return;
        target.clear();
        for (const auto& item : value->toArray()) {
            if (!item.isString()) throw InputError(std::string("session: '") + key + "' must hold strings");
            target.push_back(item.toString().toStdString());
        }
    }
    void read(const char* key, std::vector<ParamOverrides>& target) const {
        const auto value = field(key, QJsonValue::Array);
        if (!value) return;
        target.clear();
        for (const auto& item : value->toArray()) {
            if (!item.isObject()) throw InputError(std::string("session: '") + key + "' must hold objects");
            target.push_back(overrides(key, item.toObject()));
        }
    }

private:
    template <class Integer>
    void readInteger(const char* key, Integer& target) const {
        if (const auto value = field(key, QJsonValue::Double)) target = static_cast<Integer>(value->toInteger());
    }
    std::optional<QJsonValue> field(const char* key, QJsonValue::Type type) const {
        const QJsonValue value = m_json.value(QLatin1String(key));
        if (value.isUndefined()) return std::nullopt;
        if (value.type() != type) throw InputError(std::string("session: '") + key + "' has the wrong type");
        return value;
    }
    static ParamOverrides overrides(const char* key, const QJsonObject& json) {
        ParamOverrides params;
        for (auto it = json.begin(); it != json.end(); ++it) {
            if (!it.value().isString()) throw InputError(std::string("session: values of '") + key + "' must be strings");
            params[it.key().toStdString()] = it.value().toString().toStdString();
        }
        return params;
    }

    const QJsonObject& m_json;
};

void requireRange(const char* key, std::int64_t value, std::int64_t low, std::int64_t high) {
    if (value < low || value > high)
        throw InputError(std::string("session: '") + key + "' = " + std::to_string(value) + " is out of range [" +
                         std::to_string(low) + ", " + std::to_string(high) + "]");
}

void requireKnownVariant(const char* key, const std::string& id) {
    if (!findVariant(id)) throw InputError(std::string("session: '") + key + "' names an unknown variant '" + id + "'");
}

// The limits the panel and `attnlab figure` accept; parameter values are left to the views, which show
// core's message for a combination it rejects.
void checkSettings(const LabSettings& settings) {
    requireKnownVariant("variant", settings.variant);
    requireRange("n", settings.n, 1, 65536);
    requireRange("d", settings.d, 1, 4096);
    requireRange("heads", settings.heads, 1, 256);
    requireRange("head", settings.head, 0, settings.heads - 1);
    requireRange("kv_heads", settings.kvHeads, 0, settings.heads);
    if (settings.kvHeads > 0 && settings.heads % settings.kvHeads != 0)
        throw InputError("session: 'kv_heads' = " + std::to_string(settings.kvHeads) + " must divide 'heads' = " +
                         std::to_string(settings.heads));
    requireRange("model_layers", settings.modelLayers, 1, 1024);
    requireRange("memory_budget", settings.memoryBudget, 0, std::int64_t{1} << 50);
    requireRange("layers", settings.layers, 1, 64);
    requireRange("timing_max_n", settings.timingMaxN, 64, 65536);
    if (!(settings.accuracyInputScale >= kMinInputScale && settings.accuracyInputScale <= kMaxInputScale))
        throw InputError("session: 'accuracy_input_scale' = " + std::to_string(settings.accuracyInputScale) +
                         " is out of range [" + std::to_string(kMinInputScale) + ", " + std::to_string(kMaxInputScale) + "]");
    if (!settings.compareVariants.empty()) requireRange("compare", static_cast<std::int64_t>(settings.compareVariants.size()), 2, 4);
    for (const auto& id : settings.compareVariants) requireKnownVariant("compare", id);
    if (settings.compareParams.size() > settings.compareVariants.size())
        throw InputError("session: 'compare_params' has more entries than 'compare'");
    if (settings.panelTitles.size() > std::max<std::size_t>(1, settings.compareVariants.size()))
        throw InputError("session: 'panel_titles' has more entries than there are panels");
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
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw InputError("cannot write session '" + path.toStdString() + "': " + file.errorString().toStdString());
    file.write(QJsonDocument(json).toJson(QJsonDocument::Indented));
    if (!file.commit())
        throw InputError("cannot write session '" + path.toStdString() + "': " + file.errorString().toStdString());
}

Session loadSession(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw InputError("cannot open session '" + path.toStdString() + "': " + file.errorString().toStdString());
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError)
        throw InputError("session '" + path.toStdString() + "' is not JSON: " + error.errorString().toStdString());
    const QJsonObject json = document.object();
    if (json.value("format").toString() != QLatin1String(kFormat))
        throw InputError("'" + path.toStdString() + "' is not an attnlab session file");
    const QJsonValue version = json.value("version");
    if (!version.isDouble() || version.toDouble() != kVersion)
        throw InputError("session '" + path.toStdString() + "' is not version " + std::to_string(kVersion) +
                         " (the version this attnlab reads): its 'version' is " +
                         QJsonDocument(QJsonArray{version}).toJson(QJsonDocument::Compact).mid(1).chopped(1).toStdString());
    if (!json.value("settings").isObject()) throw InputError("session '" + path.toStdString() + "' has no 'settings' object");
    if (!json.value("view").isUndefined() && !json.value("view").isString())
        throw InputError("session '" + path.toStdString() + "': 'view' has the wrong type");
    Session session;
    session.view = json.value("view").toString(session.view);
    session.settings = settingsFromJson(json.value("settings").toObject());
    return session;
}

} // namespace attnlab
