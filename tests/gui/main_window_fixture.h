#pragma once

// What the main-window test programs share: helpers that drive the parameter panel and menus as a user
// does, the test fixture (a fresh window, QSettings cleared) and the program's main(), which keeps the
// QSettings of the tests in a temporary directory removed at exit.

#include "views/plot/colormap.h"
#include "views/figures/figure_export.h"
#include "views/figures/flops_view.h"
#include "gui_test_main.h"

#include "views/shell/main_window.h"
#include "views/shell/model_presets.h"
#include "views/shell/parameter_panel.h"
#include "views/figures/pattern_view.h"
#include "views/shell/session_file.h"

#include "core/analysis/settings_check.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <climits>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

namespace attnlab::mainwindowtest {

constexpr int kIdleTimeoutMs = 60000;

inline QString text(const std::string& value) { return QString::fromStdString(value); }

inline void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

// Chooses `id` in a variant combo box the way a user does (the item, then its activation).
inline void chooseVariant(QComboBox* combo, const std::string& id) {
    const int index = combo->findData(text(id), Qt::UserRole);
    ASSERT_GE(index, 0) << id << " is not offered";
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

inline QCheckBox* compareToggle(const ParameterPanel& panel) {
    for (QCheckBox* box : panel.findChildren<QCheckBox*>())
        if (box->text().contains(QStringLiteral("side by side"))) return box;
    return nullptr;
}

inline QComboBox* modelPresetChooser(const ParameterPanel& panel) {
    for (QComboBox* combo : panel.findChildren<QComboBox*>())
        if (combo->count() > 0 && combo->itemText(0).startsWith(QStringLiteral("Model shape"))) return combo;
    return nullptr;
}

inline QAction* presetAction(const MainWindow& window, const QString& name) {
    for (QAction* menu : window.menuBar()->actions()) {
        if (!menu->menu() || !menu->text().contains(QStringLiteral("Presets"))) continue;
        for (QAction* action : menu->menu()->actions())
            if (action->text() == name) return action;
    }
    return nullptr;
}

inline QImage paint(const FigureView& view) {
    QImage image(view.size(), QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    view.paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(view.size())));
    return image;
}

// Every field of LabSettings set away from its default.
inline LabSettings unusualSettings() {
    LabSettings settings;
    settings.variant = "longformer";
    settings.params = {{"window", "8"}, {"globals", "0,3"}};
    settings.n = 96;
    settings.d = 32;
    settings.heads = 4;
    settings.kvHeads = 2;
    settings.causal = true;
    settings.head = 2;
    settings.source = InputSource::RandomGaussian;
    settings.inputSeed = (std::uint64_t{1} << 40) + 5;
    settings.qPath = "/data/q.npy";
    settings.kPath = "/data/k.npy";
    settings.vPath = "/data/v.npy";
    settings.compareVariants = {"longformer", "bigbird", "strided"};
    settings.compareParams = {{{"window", "8"}, {"globals", "0,3"}}, {{"random", "2"}}};
    settings.layers = 5;
    settings.showWeights = true;
    settings.showMaskOutline = false;
    settings.flopsAsMacs = false;
    settings.modelLayers = 80;
    settings.memoryBudget = std::int64_t{3} << 30;
    return settings;
}

class MainWindowTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(dir.isValid());
        QSettings().clear();
    }

    std::unique_ptr<MainWindow> openWindow(bool restoreState = false) {
        auto window = std::make_unique<MainWindow>(restoreState);
        window->show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(window.get()));
        return window;
    }

    QString path(const QString& name) const { return dir.filePath(name); }

    QTemporaryDir dir;
};

} // namespace attnlab::mainwindowtest
