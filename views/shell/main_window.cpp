#include "views/shell/main_window.h"

#include "views/figures/accuracy_view.h"
#include "views/figures/figure_export.h"
#include "views/figures/flops_view.h"
#include "views/figures/inference_view.h"
#include "views/figures/pattern_view.h"
#include "views/figures/receptive_field_view.h"
#include "views/figures/roofline_view.h"
#include "views/figures/timing_view.h"
#include "views/imgui/imgui_lab_widget.h"
#include "views/jobs/job_board.h"
#include "views/shell/animation_dialog.h"
#include "views/shell/app_menus.h"
#include "views/shell/model_presets.h"
#include "views/shell/parameter_panel.h"
#include "views/shell/session_file.h"
#include "views/shell/wheel_guard.h"

#include "core/analysis/settings_check.h"
#include "core/errors.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QJsonDocument>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>

namespace attnlab {

namespace {

const QString kLabName = QStringLiteral("lab");

QString tabLabel(const QString& name) {
    if (name == QLatin1String("pattern")) return MainWindow::tr("Pattern");
    if (name == QLatin1String("reach")) return MainWindow::tr("Receptive field");
    if (name == QLatin1String("timing")) return MainWindow::tr("Timing");
    if (name == QLatin1String("flops")) return MainWindow::tr("FLOP breakdown");
    if (name == QLatin1String("accuracy")) return MainWindow::tr("Accuracy");
    if (name == QLatin1String("inference")) return MainWindow::tr("Inference");
    if (name == QLatin1String("roofline")) return MainWindow::tr("Roofline");
    return MainWindow::tr("ImGui lab");
}

// The timing sweep's progress bar and its button in the status bar: Cancel while it measures, Measure
// again after a cancelled (partial) sweep.
void addTimingControls(QStatusBar* bar, TimingView* timing) {
    auto* progress = new QProgressBar;
    progress->setObjectName(QStringLiteral("timingProgress"));
    progress->setMaximumWidth(160);
    progress->setFormat(MainWindow::tr("timing %v/%m"));
    progress->setVisible(false);
    auto* button = new QToolButton;
    button->setObjectName(QStringLiteral("timingCancel"));
    button->setVisible(false);
    bar->addPermanentWidget(progress);
    bar->addPermanentWidget(button);
    QObject::connect(timing, &TimingView::progressChanged, progress, [progress](int done, int total) {
        progress->setRange(0, std::max(1, total));
        progress->setValue(done);
    });
    QObject::connect(timing, &FigureView::busyChanged, button, [timing, progress, button](bool busy) {
        progress->setVisible(busy);
        button->setText(busy ? MainWindow::tr("Cancel timing") : MainWindow::tr("Measure timing again"));
        button->setVisible(busy || timing->partial());
    });
    QObject::connect(button, &QToolButton::clicked, timing, [timing] { timing->busy() ? timing->cancel() : timing->remeasure(); });
}

} // namespace

QStringList figureViewNames() {
    return {QStringLiteral("pattern"), QStringLiteral("reach"), QStringLiteral("timing"), QStringLiteral("flops"),
            QStringLiteral("accuracy"), QStringLiteral("inference"), QStringLiteral("roofline")};
}

std::unique_ptr<FigureView> createFigureView(const QString& name) {
    if (name == QLatin1String("pattern")) return std::make_unique<PatternView>();
    if (name == QLatin1String("reach")) return std::make_unique<ReceptiveFieldView>();
    if (name == QLatin1String("timing")) return std::make_unique<TimingView>();
    if (name == QLatin1String("flops")) return std::make_unique<FlopsView>();
    if (name == QLatin1String("accuracy")) return std::make_unique<AccuracyView>();
    if (name == QLatin1String("inference")) return std::make_unique<InferenceView>();
    if (name == QLatin1String("roofline")) return std::make_unique<RooflineView>();
    return nullptr;
}

MainWindow::MainWindow(bool restoreState, QWidget* parent) : QMainWindow(parent), m_storeOnClose(restoreState) {
    setWindowTitle(tr("AttnLab — what attention costs"));
    installWheelGuard();
    m_panel = new ParameterPanel;
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_panel);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(m_panel->sizeHint().width() + 24);
    auto* dock = new QDockWidget(tr("Parameters"), this);
    dock->setObjectName(QStringLiteral("parametersDock"));
    dock->setWidget(scroll);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);

    buildViews();
    buildMenus();
    m_busy = new QProgressBar;
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setVisible(false);
    // Names the jobs under way beside the spinner: "working: receptive field".
    m_busy->setFormat(QString());
    m_busy->setTextVisible(false);
    auto* working = new QLabel;
    working->setObjectName(QStringLiteral("jobsRunning"));
    connect(&JobBoard::instance(), &JobBoard::changed, working, [working] {
        const QString running = JobBoard::instance().runningText();
        working->setText(running.isEmpty() ? QString() : tr("working: %1").arg(running));
    });
    statusBar()->addPermanentWidget(working);
    m_statusNote = new QLabel;
    statusBar()->addPermanentWidget(m_statusNote);
    statusBar()->addPermanentWidget(m_busy);
    m_cancelJobs = new QToolButton;
    m_cancelJobs->setObjectName(QStringLiteral("cancelJobs"));
    m_cancelJobs->setText(tr("Cancel"));
    m_cancelJobs->setToolTip(tr("Stop the work under way (Esc); View → Recompute (F5) starts it again"));
    m_cancelJobs->setVisible(false);
    connect(m_cancelJobs, &QToolButton::clicked, this, &MainWindow::cancelWork);
    statusBar()->addPermanentWidget(m_cancelJobs);
    if (auto* timing = qobject_cast<TimingView*>(view(QStringLiteral("timing")))) addTimingControls(statusBar(), timing);

    connect(m_panel, &ParameterPanel::settingsChanged, this, &MainWindow::applySettings);
    resize(1280, 820);
    if (restoreState) restoreFromSettings();
    applySettings(m_settings);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildViews() {
    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    for (const QString& name : figureViewNames()) {
        FigureView* view = createFigureView(name).release();
        m_views << view;
        m_tabs->addTab(view, tabLabel(name));
        connect(view, &FigureView::busyChanged, this, &MainWindow::refreshBusy);
        // A view's error that is the settings' problem is already the status bar's note: shown twice, the
        // copy on the left is cut off where the note begins.
        connect(view, &FigureView::statusMessage, this, [this](const QString& message) {
            if (!m_statusNote || message != m_statusNote->text()) statusBar()->showMessage(message, 8000);
        });
    }
    if (ImGuiLabWidget::openGlAvailable()) {
        m_lab = new ImGuiLabWidget;
        m_tabs->addTab(m_lab, tabLabel(kLabName));
        connect(m_lab, &ImGuiLabWidget::settingsEdited, this, &MainWindow::applySettings);
    } else {
        auto* note = new QLabel(tr("The Dear ImGui live lab is unavailable: this platform (%1) has no OpenGL.\n"
                                   "Every other view works; run on a desktop session to use the lab.")
                                    .arg(QGuiApplication::platformName()));
        note->setAlignment(Qt::AlignCenter);
        note->setObjectName(QStringLiteral("labUnavailable"));
        m_tabs->addTab(note, tabLabel(kLabName));
    }
    setCentralWidget(m_tabs);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QToolBar* toolbar = addToolBar(tr("Main toolbar"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto add = [this](QMenu* menu, const QString& text, const QKeySequence& keys, auto slot) {
        QAction* action = menu->addAction(text);
        action->setShortcut(keys);
        connect(action, &QAction::triggered, this, slot);
        return action;
    };
    toolbar->addAction(add(file, tr("&Open session…"), QKeySequence::Open, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), QString(),
                                                          tr("AttnLab sessions (*.attnlab.json *.json)"));
        if (!path.isEmpty()) openSession(path);
    }));
    toolbar->addAction(add(file, tr("&Save session…"), QKeySequence::Save, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save session"), QStringLiteral("session.attnlab.json"),
                                                          tr("AttnLab sessions (*.attnlab.json *.json)"));
        if (!path.isEmpty()) {
            try {
                saveSession(path);
                statusBar()->showMessage(tr("saved %1").arg(path), 5000);
            } catch (const InputError& error) {
                showError(QString::fromStdString(error.what()));
            }
        }
    }));
    file->addSeparator();
    toolbar->addSeparator();
    toolbar->addAction(add(file, tr("&Export figure…"), QKeySequence(Qt::CTRL | Qt::Key_E), [this] { exportCurrentFigure(); }));
    add(file, tr("Export data &CSV…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), [this] { exportCurrentCsv(); });
    addExportAnimationAction(file, this);
    toolbar->addAction(add(file, tr("Cop&y figure"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), [this] { copyCurrentFigure(); }));
    file->addSeparator();
    add(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    toolbar->addSeparator();
    QStringList names = figureViewNames();
    names << kLabName;
    for (int index = 0; index < names.size(); ++index) {
        const QString name = names[index];
        QAction* action = add(viewMenu, tabLabel(name), QKeySequence(Qt::CTRL | (Qt::Key_1 + index)), [this, name] { selectView(name); });
        toolbar->addAction(action);
    }
    viewMenu->addSeparator();
    add(viewMenu, tr("Recompute"), QKeySequence(Qt::Key_F5), [this] {
        if (FigureView* shown = currentView()) shown->recompute();
    });
    add(viewMenu, tr("Cancel work"), QKeySequence(Qt::Key_Escape), [this] { cancelWork(); });
    viewMenu->addSeparator();
    addLanguageMenu(viewMenu, this);

    QMenu* presets = menuBar()->addMenu(tr("&Presets"));
    for (const auto& preset : modelPresets())
        presets->addAction(presetText(preset.name), this, [this, preset] { applySettings(applyModelPreset(m_settings, preset)); });
    presets->addSeparator();
    for (const auto& preset : figurePresets())
        presets->addAction(presetText(preset.name), this, [this, preset] {
            applySettings(preset.settings);
            selectView(preset.view);
        });
    addHelpMenu(this);
}

void MainWindow::applySettings(const LabSettings& settings) {
    m_settings = settings;
    if (m_panel->settings() != settings) m_panel->setSettings(settings);
    if (m_lab && m_lab->settings() != settings) m_lab->setSettings(settings);
    const QString problem = QString::fromStdString(settingsProblem(settings));
    m_statusNote->setText(problem);
    m_statusNote->setStyleSheet(problem.isEmpty() ? QString() : QStringLiteral("color: #b00020;"));
    for (FigureView* view : m_views) view->setSettings(settings);
    refreshBusy();
}

FigureView* MainWindow::view(const QString& name) const {
    for (FigureView* view : m_views)
        if (view->viewName() == name) return view;
    return nullptr;
}

FigureView* MainWindow::currentView() const { return qobject_cast<FigureView*>(m_tabs->currentWidget()); }

QString MainWindow::currentViewName() const {
    const FigureView* figure = currentView();
    return figure ? figure->viewName() : kLabName;
}

bool MainWindow::selectView(const QString& name) {
    if (name == kLabName) {
        m_tabs->setCurrentIndex(m_tabs->count() - 1);
        return true;
    }
    FigureView* figure = view(name);
    if (!figure) return false;
    m_tabs->setCurrentWidget(figure);
    return true;
}

bool MainWindow::waitUntilIdle(int timeoutMs) {
    QList<const FigureView*> views;
    for (const FigureView* view : m_views) views << view;
    return attnlab::waitUntilIdle(views, timeoutMs);
}

void MainWindow::cancelWork() {
    for (FigureView* view : m_views) view->cancelByUser();
}

void MainWindow::refreshBusy() {
    bool anyBusy = false;
    for (const FigureView* view : m_views) anyBusy = anyBusy || view->busy();
    m_busy->setVisible(anyBusy);
    m_cancelJobs->setVisible(anyBusy);
}

bool MainWindow::openSession(const QString& path) {
    try {
        const Session session = loadSession(path);
        applySettings(session.settings);
        selectView(session.view);
        statusBar()->showMessage(tr("opened %1").arg(path), 5000);
        return true;
    } catch (const InputError& error) {
        showError(QString::fromStdString(error.what()));
        return false;
    }
}

void MainWindow::saveSession(const QString& path) const { attnlab::saveSession(path, Session{m_settings, currentViewName()}); }

void MainWindow::restoreFromSettings() {
    QSettings store;
    restoreGeometry(store.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(store.value(QStringLiteral("window/state")).toByteArray());
    const QByteArray saved = store.value(QStringLiteral("lab/settings")).toByteArray();
    if (!saved.isEmpty()) {
        try {
            m_settings = settingsFromJson(QJsonDocument::fromJson(saved).object());
        } catch (const InputError&) {
            m_settings = LabSettings{};
        }
    } else {
        m_settings = firstRunPreset().settings;
    }
    selectView(store.value(QStringLiteral("lab/view"), QStringLiteral("pattern")).toString());
}

void MainWindow::storeToSettings() const {
    QSettings store;
    store.setValue(QStringLiteral("window/geometry"), saveGeometry());
    store.setValue(QStringLiteral("window/state"), saveState());
    store.setValue(QStringLiteral("lab/settings"), QJsonDocument(settingsToJson(m_settings)).toJson(QJsonDocument::Compact));
    store.setValue(QStringLiteral("lab/view"), currentViewName());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_storeOnClose) storeToSettings();
    event->accept();
}

void MainWindow::showError(const QString& message) {
    m_lastError = message;
    statusBar()->showMessage(message, 10000);
    // Window-modal but not blocking: no nested event loop, so jobs keep delivering while it is open.
    auto* box = new QMessageBox(QMessageBox::Warning, QStringLiteral("AttnLab"), message, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("errorMessage"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

QSizeF MainWindow::exportSize(const FigureView& view) const {
    const QSizeF shown = view.size();
    return shown.width() >= 400 && shown.height() >= 300 ? shown : QSizeF(900, 600);
}

void MainWindow::exportCurrentFigure() {
    const FigureView* figure = currentView();
    if (!figure) return showError(tr("the ImGui lab has no figure to export: choose another view"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export figure"), figure->viewName() + QStringLiteral(".png"),
                                                      tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty()) return;
    ExportOptions options;
    options.size = exportSize(*figure);
    try {
        if (exportFormatOf(path) == ExportFormat::Png) {
            bool ok = false;
            options.dpi = QInputDialog::getInt(this, tr("PNG resolution"), tr("dots per inch"), 300, 30, 1200, 10, &ok);
            if (!ok) return;
        }
        exportFigure(*figure, path, options);
        statusBar()->showMessage(tr("exported %1").arg(path), 5000);
    } catch (const InputError& error) {
        showError(QString::fromStdString(error.what()));
    }
}

void MainWindow::exportCurrentCsv() {
    const FigureView* figure = currentView();
    if (!figure) return showError(tr("the ImGui lab has no data to export: choose another view"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export data"), figure->viewName() + QStringLiteral(".csv"),
                                                      tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    try {
        exportFigure(*figure, path, ExportOptions{});
        statusBar()->showMessage(tr("exported %1").arg(path), 5000);
    } catch (const InputError& error) {
        showError(QString::fromStdString(error.what()));
    }
}

void MainWindow::copyCurrentFigure() {
    const FigureView* figure = currentView();
    if (!figure) return;
    copyFigureToClipboard(*figure, exportSize(*figure));
    statusBar()->showMessage(tr("figure copied to the clipboard"), 5000);
}

} // namespace attnlab
