#pragma once

#include "views/figures/figure_view.h"
#include "core/analysis/lab_settings.h"

#include <QList>
#include <QMainWindow>

#include <memory>

class QAction;
class QLabel;
class QProgressBar;
class QTabWidget;
class QToolButton;

namespace attnlab {

class ImGuiLabWidget;
class ParameterPanel;

// A new figure view by its viewName() ("pattern", "reach", "timing", "flops", "accuracy"), or null.
std::unique_ptr<FigureView> createFigureView(const QString& name);
QStringList figureViewNames();

// The desktop app: the parameter panel on the left, one tab per figure view plus the Dear ImGui lab,
// menus, toolbar, shortcuts and a status bar. Settings flow from the panel (or the lab) to every view
// as one immutable LabSettings value.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // With restoreState, window geometry, the last view and the last settings come from QSettings.
    explicit MainWindow(bool restoreState = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    const LabSettings& labSettings() const { return m_settings; }
    void applySettings(const LabSettings& settings);
    ParameterPanel* parameterPanel() const { return m_panel; }
    const QList<FigureView*>& views() const { return m_views; }
    FigureView* view(const QString& name) const;
    // The figure on the current tab (null on the lab tab).
    FigureView* currentView() const;
    QString currentViewName() const;
    // Shows the view or "lab"; false for an unknown name.
    bool selectView(const QString& name);
    // Runs the event loop until every view has drawn and no job is busy; false on timeout.
    bool waitUntilIdle(int timeoutMs);
    // Stops every view's work in flight (the status bar's Cancel, Esc, a screenshot's time limit).
    void cancelWork();

    // Applies a session file; on any error shows it (status bar and a non-blocking message box),
    // keeps the current settings and returns false.
    bool openSession(const QString& path);
    // Throws InputError when the file cannot be written.
    void saveSession(const QString& path) const;
    // The last error shown to the user (empty when none yet).
    const QString& lastError() const { return m_lastError; }

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildViews();
    void buildMenus();
    void restoreFromSettings();
    void storeToSettings() const;
    void refreshBusy();
    void showError(const QString& message);
    void exportCurrentFigure();
    void exportCurrentCsv();
    void copyCurrentFigure();
    QSizeF exportSize(const FigureView& view) const;

    LabSettings m_settings;
    ParameterPanel* m_panel = nullptr;
    QTabWidget* m_tabs = nullptr;
    QList<FigureView*> m_views;
    ImGuiLabWidget* m_lab = nullptr;
    QProgressBar* m_busy = nullptr;
    QToolButton* m_cancelJobs = nullptr; // stops every view's work in flight
    QLabel* m_statusNote = nullptr;
    QAction* m_slideMode = nullptr; // View → Slide mode, checked as the settings say
    bool m_storeOnClose = true;
    QString m_lastError;
};

} // namespace attnlab
