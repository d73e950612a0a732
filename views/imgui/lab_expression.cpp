// The ImGui lab's pattern composer for the custom variant's expression, and "edit as expression" for
// built-in patterns: the same checks and building blocks as the parameter panel's composer.
#include "views/imgui/imgui_lab_widget.h"

#include "views/imgui/lab_style.h"
#include "views/shell/expression_composer.h"

#include "core/analysis/settings_check.h"
#include "core/patterns/pattern_expression.h"
#include "core/registry.h"

#include <imgui.h>

#include <QCoreApplication>

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

namespace attnlab {

namespace {

constexpr int kBlocksPerLine = 4;

} // namespace

void ImGuiLabWidget::drawExpressionComposer(const ParamSpec& spec, const std::string& current, LabSettings& edited) {
    // The field keeps what the user typed while it does not parse; the settings keep the last good text.
    if (current != m_expressionSynced) {
        m_expressionText = current;
        m_expressionSynced = current;
        m_expressionCheck = {};
    }
    std::vector<char> buffer(m_expressionText.begin(), m_expressionText.end());
    buffer.resize(kMaxExpressionLength + 2, '\0');
    const std::string label = spec.key + "##expression";
    bool changed = ImGui::InputText(label.c_str(), buffer.data(), buffer.size());
    recordControl(spec.key.c_str(), QString::fromStdString(m_expressionText));
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s\n%s", spec.description.c_str(), tr("| union, & intersection, ! complement; checked as you type").toUtf8().constData());
    if (changed) m_expressionText = buffer.data();
    int index = 0;
    for (const QString& block : ExpressionComposer::buildingBlocks()) {
        if (index++ % kBlocksPerLine != 0) ImGui::SameLine();
        const std::string text = block.toStdString();
        if (ImGui::SmallButton(text.c_str())) {
            m_expressionText = insertBuildingBlock(QString::fromStdString(m_expressionText), static_cast<int>(m_expressionText.size()),
                                                   block, nullptr)
                                   .toStdString();
            changed = true;
        }
    }
    if (changed) {
        m_expressionCheck = checkExpression(QString::fromStdString(m_expressionText));
        if (m_expressionCheck.ok()) {
            edited.params[spec.key] = m_expressionText;
            m_expressionSynced = m_expressionText;
        }
    }
    if (m_expressionCheck.ok()) return;
    // The expression with a caret under the character at fault (ImGui's default font is monospaced).
    const std::size_t at = std::min(m_expressionCheck.position, m_expressionText.size() + 1) - 1;
    const std::size_t first = at > 40 ? at - 40 : 0;
    const std::string shown = m_expressionText.substr(first, 60);
    ImGui::PushStyleColor(ImGuiCol_Text, kLabErrorColor);
    ImGui::TextUnformatted(shown.c_str());
    ImGui::TextUnformatted((std::string(at - first, ' ') + "^").c_str());
    // What the figures show meanwhile, in the composer's words: the expression still in effect, or nothing.
    const bool drawn = checkExpression(QString::fromStdString(current)).ok() && settingsProblem(m_settings).empty();
    const QString meanwhile =
        drawn ? QCoreApplication::translate("attnlab::ExpressionComposer",
                                            "%1 — not applied: the figures show the last valid expression, %2")
                    .arg(m_expressionCheck.message, QString::fromStdString(current))
              : QCoreApplication::translate("attnlab::ExpressionComposer", "%1 — nothing is drawn until the expression is valid")
                    .arg(m_expressionCheck.message);
    ImGui::TextWrapped("%s", meanwhile.toUtf8().constData());
    ImGui::PopStyleColor();
    recordControl("expression error", meanwhile);
}

void ImGuiLabWidget::drawEditAsExpression(const VariantInfo& variant, LabSettings& edited) {
    if (!variant.printExpr) return;
    if (ImGui::SmallButton(labLabel(tr("edit as expression"), "edit-as-expression").c_str())) {
        try {
            edited = editAsExpression(m_settings);
        } catch (const std::exception& error) {
            m_error = QString::fromStdString(error.what());
        }
    }
    recordControl("edit as expression", QString());
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("switch to the custom variant with an expression giving exactly this pattern").toUtf8().constData());
}

} // namespace attnlab
