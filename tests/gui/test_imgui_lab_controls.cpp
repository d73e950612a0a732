// The ImGui lab's controls: settings shown without signalling back, a control for every parameter of
// every variant, and edits (a click, a slider drag, a typed list, an invalid combination) emitted or
// refused as a user sees them.

#include "gui/imgui_lab_fixture.h"

#include "core/param_schema.h"
#include "core/registry.h"

#include <QSignalSpy>

namespace attnlab::labtest {
namespace {

TEST_F(ImGuiLabWidgetTest, SetSettingsShowsValuesWithoutSignallingBack) {
    QSignalSpy edited(lab.get(), &ImGuiLabWidget::settingsEdited);
    LabSettings settings = settingsFor("strided", 1024, true);
    settings.d = 32;
    settings.heads = 4;
    settings.head = 2;
    showSettings(settings);
    EXPECT_EQ(lab->controlValue("variant"), "strided");
    EXPECT_EQ(lab->controlValue("n"), "1024");
    EXPECT_EQ(lab->controlValue("d"), "32");
    EXPECT_EQ(lab->controlValue("h"), "4");
    EXPECT_EQ(lab->controlValue("head"), "2");
    EXPECT_EQ(lab->controlValue("causal"), "true");
    EXPECT_EQ(lab->controlValue("stride"), "32"); // default ceil(sqrt(1024))
    settings.params["stride"] = "7";
    showSettings(settings);
    EXPECT_EQ(lab->controlValue("stride"), "7");
    frame();
    EXPECT_EQ(edited.count(), 0);
    EXPECT_EQ(lab->settings(), settings);
}

TEST_F(ImGuiLabWidgetTest, EveryParameterOfEveryVariantHasAControlShowingItsValue) {
    for (const VariantInfo& variant : allVariants()) {
        LabSettings settings = settingsFor(variant.id, 300, variant.causalSupport == CausalSupport::CausalOnly);
        showSettings(settings);
        const ProblemShape shape{1, 300, settings.d, settings.d, settings.causal};
        const ParamSet defaults = resolveParams(variant.id, variant.params, {}, shape.context());
        for (const ParamSpec& spec : variant.params) {
            const QString key = QString::fromStdString(spec.key);
            EXPECT_FALSE(lab->controlRect(key).isEmpty()) << variant.id << " has no control for " << spec.key;
            EXPECT_EQ(lab->controlValue(key).toStdString(), paramValueText(defaults.values().at(spec.key))) << variant.id << "." << spec.key;
        }
        EXPECT_TRUE(lab->errorMessage().isEmpty()) << variant.id << ": " << lab->errorMessage().toStdString();
    }
}

TEST_F(ImGuiLabWidgetTest, ClickingCausalEmitsTheEditedSettings) {
    showSettings(settingsFor("full", 64));
    QSignalSpy edited(lab.get(), &ImGuiLabWidget::settingsEdited);
    click(lab->controlRect("causal").center());
    ASSERT_EQ(edited.count(), 1);
    const auto emitted = edited.at(0).at(0).value<LabSettings>();
    EXPECT_TRUE(emitted.causal);
    EXPECT_EQ(emitted.variant, "full");
    EXPECT_TRUE(lab->settings().causal);
    frame();
    EXPECT_EQ(edited.count(), 1);
}

TEST_F(ImGuiLabWidgetTest, DraggingAParameterSliderToItsLeftEndSetsItsMinimum) {
    showSettings(settingsFor("strided", 256));
    QSignalSpy edited(lab.get(), &ImGuiLabWidget::settingsEdited);
    const QRectF slider = lab->controlRect("stride");
    ASSERT_FALSE(slider.isEmpty());
    const QPointF start = slider.center();
    moveMouse(start);
    pressMouse(start);
    moveMouse(QPointF(slider.left() - 40, start.y()), Qt::LeftButton);
    releaseMouse(QPointF(slider.left() - 40, start.y()));
    ASSERT_GE(edited.count(), 1);
    EXPECT_EQ(lab->settings().params.at("stride"), "1");
    EXPECT_EQ(edited.last().at(0).value<LabSettings>().params.at("stride"), "1");
    frame();
    EXPECT_EQ(lab->controlValue("stride"), "1");
}

TEST_F(ImGuiLabWidgetTest, TypedIndexListIsAppliedOnEnter) {
    showSettings(settingsFor("longformer", 128));
    QSignalSpy edited(lab.get(), &ImGuiLabWidget::settingsEdited);
    click(lab->controlRect("globals").center());
    for (const QString& character : {QStringLiteral("0"), QStringLiteral(","), QStringLiteral("5")})
        pressKey(character == "," ? Qt::Key_Comma : Qt::Key_0 + character.toInt(), character);
    EXPECT_EQ(edited.count(), 0);
    pressKey(Qt::Key_Return);
    ASSERT_EQ(edited.count(), 1);
    EXPECT_EQ(lab->settings().params.at("globals"), "0,5");
    frame();
    frame();
    moveMouse(cellCentre(100, 5));
    ASSERT_TRUE(lab->hoveredCell().has_value());
    EXPECT_TRUE(lab->hoveredCell()->allowed); // column 5 is global now
}

TEST_F(ImGuiLabWidgetTest, InvalidCombinationShowsTheErrorInsteadOfAPattern) {
    LabSettings settings = settingsFor("fixed", 256);
    settings.params = {{"block", "4"}, {"summary", "9"}};
    showSettings(settings);
    EXPECT_NE(lab->errorMessage().indexOf("summary"), -1) << lab->errorMessage().toStdString();
    EXPECT_EQ(lab->errorMessage().count('\n'), 0);
    moveMouse(lab->canvasRect().center());
    EXPECT_FALSE(lab->hoveredCell().has_value());
    settings.params["summary"] = "2";
    showSettings(settings);
    EXPECT_TRUE(lab->errorMessage().isEmpty()) << lab->errorMessage().toStdString();
}

// A mistake in the expression field says what the canvas shows meanwhile, in the Qt composer's words: the
// expression still in effect, or that nothing is drawn when none can be.
TEST_F(ImGuiLabWidgetTest, AnExpressionMistakeSaysWhatIsShownMeanwhile) {
    const auto typeText = [&](const QString& text) {
        for (const QChar character : text) pressKey(Qt::Key_unknown, QString(character));
    };
    LabSettings settings = settingsFor("custom", 64);
    settings.params = {{"expr", "band(4)"}};
    showSettings(settings);
    click(lab->controlRect("expr").center());
    pressKey(Qt::Key_End);
    typeText(QStringLiteral(" & blok"));
    const QString kept = lab->controlValue(QStringLiteral("expression error"));
    // "band(4) " parsed (and was applied) before "&" was typed.
    EXPECT_TRUE(kept.contains(QStringLiteral("not applied")) && kept.endsWith(QStringLiteral(", band(4) "))) << kept.toStdString();
    EXPECT_EQ(lab->settings().params.at("expr"), "band(4) ");

    settings.params = {{"expr", "neighborhood(3)"}}; // parses, but without a grid nothing can be drawn
    showSettings(settings);
    click(lab->controlRect("expr").center());
    pressKey(Qt::Key_End);
    typeText(QStringLiteral(" |"));
    const QString nothing = lab->controlValue(QStringLiteral("expression error"));
    EXPECT_TRUE(nothing.contains(QStringLiteral("nothing is drawn"))) << nothing.toStdString();
    EXPECT_FALSE(nothing.contains(QStringLiteral("last valid"))) << nothing.toStdString();
}

} // namespace
} // namespace attnlab::labtest
