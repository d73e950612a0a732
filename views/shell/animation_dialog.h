#pragma once

#include "views/animation/animation_renderer.h"

#include <QDialog>

#include <memory>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;

namespace attnlab {

class MainWindow;

// File → Export animation…: what to sweep in the current view and over which range (checked as it is
// typed, the frame count or the one-line problem beside it), the frame rate, the hold of the last frame,
// free axes, the file (.gif, .mp4 or .tex), a preview of the first and last frame, and the export with
// its progress and Cancel. Non-modal: the frames are computed by a view of the dialog's own on its
// workers and encoded on another (AnimationRenderer), so the window keeps working meanwhile.
class AnimationDialog : public QDialog {
    Q_OBJECT
  public:
    AnimationDialog(const QString& view, const LabSettings& settings, QWidget* parent = nullptr);
    ~AnimationDialog() override;

    // For tests and automation: the fields, the running export, and its controls.
    QComboBox* paramBox() const { return m_param; }
    QLineEdit* rangeEdit() const { return m_range; }
    QLineEdit* pathEdit() const { return m_path; }
    QPushButton* exportButton() const { return m_export; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* previewButton() const { return m_previewButton; }
    QLabel* statusLabel() const { return m_status; }
    QProgressBar* progressBar() const { return m_progress; }
    const AnimationRenderer* renderer() const { return m_renderer.get(); }
    // The first and last frame of the last preview (null before one).
    const QImage& previewImage(int which) const { return m_previewImages[which]; }

    void startExport();
    void startPreview();
    void cancelExport();

  signals:
    void exportFinished(const QString& path);
    void previewFinished();

  private:
    // The sweep the fields ask for; throws InputError.
    AnimationSweep sweep() const;
    AnimationOutput output() const;
    void checkFields();
    void browse();
    void setRunning(bool running);
    void showPreview(int index, const QImage& image);

    QString m_view;
    LabSettings m_settings;
    QComboBox* m_param = nullptr;
    QLineEdit* m_range = nullptr;
    QLabel* m_frames = nullptr;
    QDoubleSpinBox* m_fps = nullptr;
    QDoubleSpinBox* m_hold = nullptr;
    QCheckBox* m_freeAxes = nullptr;
    QLineEdit* m_path = nullptr;
    QLabel* m_previews[2] = {nullptr, nullptr};
    QImage m_previewImages[2];
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_previewButton = nullptr;
    QPushButton* m_export = nullptr;
    QPushButton* m_cancel = nullptr;
    std::unique_ptr<AnimationRenderer> m_renderer;
    std::size_t m_frameCount = 0; // of the export running
};

// Adds File → Export animation… to `file`: a dialog for the window's current view and settings.
void addExportAnimationAction(QMenu* file, MainWindow* window);

} // namespace attnlab
