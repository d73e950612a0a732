#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace attnlab {

// Minimal streaming JSON writer: objects and arrays with automatic commas. Numbers that are whole and
// exactly representable print without a fraction, so MAC counts read as integers.
class JsonWriter {
public:
    std::string str() const { return m_text; }

    JsonWriter& beginObject() { return open('{'); }
    JsonWriter& endObject() { return close('}'); }
    JsonWriter& beginArray() { return open('['); }
    JsonWriter& endArray() { return close(']'); }

    JsonWriter& key(const std::string& name) {
        separate();
        m_text += quote(name) + ": ";
        m_afterKey = true;
        return *this;
    }
    JsonWriter& value(const std::string& text) { return raw(quote(text)); }
    JsonWriter& value(const char* text) { return raw(quote(text)); }
    JsonWriter& value(bool flag) { return raw(flag ? "true" : "false"); }
    JsonWriter& value(double number) { return raw(numberText(number)); }
    JsonWriter& value(long long number) { return raw(std::to_string(number)); }
    JsonWriter& value(long number) { return raw(std::to_string(number)); }
    JsonWriter& value(int number) { return raw(std::to_string(number)); }
    JsonWriter& null() { return raw("null"); }

    static std::string numberText(double number) {
        if (!std::isfinite(number)) return "null";
        if (std::floor(number) == number && std::fabs(number) < 9007199254740992.0) {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%.0f", number);
            return buffer;
        }
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.17g", number);
        return buffer;
    }

    static std::string quote(const std::string& text) {
        std::string out = "\"";
        for (const char c : text) {
            switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buffer[8];
                    std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
                    out += buffer;
                } else {
                    out += c;
                }
            }
        }
        return out + "\"";
    }

private:
    JsonWriter& raw(const std::string& text) {
        separate();
        m_text += text;
        return *this;
    }
    JsonWriter& open(char bracket) {
        separate();
        m_text += bracket;
        m_first.push_back(true);
        return *this;
    }
    JsonWriter& close(char bracket) {
        m_first.pop_back();
        m_text += bracket;
        return *this;
    }
    void separate() {
        if (m_afterKey) {
            m_afterKey = false;
            return;
        }
        if (!m_first.empty()) {
            if (!m_first.back()) m_text += ", ";
            m_first.back() = false;
        }
    }

    std::string m_text;
    std::vector<bool> m_first;
    bool m_afterKey = false;
};

} // namespace attnlab
