#include "views/session_file.h"

#include "core/errors.h"
#include "core/registry.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <optional>

namespace attnlab {

namespace {

constexpr auto kFormat = "attnlab-session";
constexpr int kVersion = 1;

QJsonObject overridesToJson(const ParamOverrides& params) {
    QJsonObject json;
    for (const auto& [key, value] : params) json.insert(QString::fromStdString(key), QString::fromStdString(value));
    return json;
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
    template <class Integer>
    void readInteger(const char* key, Integer& target) const {
        if (const auto value = field(key, QJsonValue::Double)) target = static_cast<Integer>(value->toInteger());
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
    requireRange("layers", settings.layers, 1, 64);
    requireRange("timing_max_n", settings.timingMaxN, 64, 65536);
    if (!settings.compareVariants.empty()) requireRange("compare", static_cast<std::int64_t>(settings.compareVariants.size()), 2, 4);
    for (const auto& id : settings.compareVariants) requireKnownVariant("compare", id);
    if (settings.compareParams.size() > settings.compareVariants.size())
        throw InputError("session: 'compare_params' has more entries than 'compare'");
}

} // namespace

QJsonObject settingsToJson(const LabSettings& settings) {
    QJsonArray compare;
    for (const auto& id : settings.compareVariants) compare.append(QString::fromStdString(id));
    QJsonArray compareParams;
    for (const auto& params : settings.compareParams) compareParams.append(overridesToJson(params));
    return QJsonObject{
        {"variant", QString::fromStdString(settings.variant)},
        {"params", overridesToJson(settings.params)},
        {"n", static_cast<qint64>(settings.n)},
        {"d", static_cast<qint64>(settings.d)},
        {"heads", settings.heads},
        {"causal", settings.causal},
        {"head", settings.head},
        {"source", QString::fromStdString(inputSourceName(settings.source))},
        // Seeds are 64-bit: text keeps every bit (JSON numbers are doubles).
        {"input_seed", QString::number(settings.inputSeed)},
        {"q_path", QString::fromStdString(settings.qPath)},
        {"k_path", QString::fromStdString(settings.kPath)},
        {"v_path", QString::fromStdString(settings.vPath)},
        {"compare", compare},
        {"compare_params", compareParams},
        {"layers", static_cast<qint64>(settings.layers)},
        {"show_weights", settings.showWeights},
        {"show_mask_outline", settings.showMaskOutline},
        {"flops_as_macs", settings.flopsAsMacs},
        {"timing_max_n", static_cast<qint64>(settings.timingMaxN)},
        {"timing_mode", QString::fromStdString(timingModeName(settings.timingMode))},
    };
}

LabSettings settingsFromJson(const QJsonObject& json) {
    LabSettings settings;
    const JsonReader reader(json);
    reader.read("variant", settings.variant);
    reader.read("params", settings.params);
    reader.readInteger("n", settings.n);
    reader.readInteger("d", settings.d);
    reader.readInteger("heads", settings.heads);
    reader.read("causal", settings.causal);
    reader.readInteger("head", settings.head);
    std::string source = inputSourceName(settings.source);
    reader.read("source", source);
    settings.source = inputSourceFromName(source);
    std::string seed = std::to_string(settings.inputSeed);
    reader.read("input_seed", seed);
    bool seedOk = false;
    settings.inputSeed = QString::fromStdString(seed).toULongLong(&seedOk);
    if (!seedOk) throw InputError("session: 'input_seed' is not an unsigned integer: '" + seed + "'");
    reader.read("q_path", settings.qPath);
    reader.read("k_path", settings.kPath);
    reader.read("v_path", settings.vPath);
    reader.read("compare", settings.compareVariants);
    reader.read("compare_params", settings.compareParams);
    reader.readInteger("layers", settings.layers);
    reader.read("show_weights", settings.showWeights);
    reader.read("show_mask_outline", settings.showMaskOutline);
    reader.read("flops_as_macs", settings.flopsAsMacs);
    reader.readInteger("timing_max_n", settings.timingMaxN);
    std::string timingMode = timingModeName(settings.timingMode);
    reader.read("timing_mode", timingMode);
    settings.timingMode = timingModeFromName(timingMode);
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
