#include "views/shell/animation_dialog.h"

#include "views/shell/main_window.h"

#include "core/errors.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab {

namespace {

constexpr int kPreviewWidth = 300;

// A range that shows the parameter moving, for a start.
QString defaultRange(const std::string& param, const LabSettings& settings) {
    const std::int64_t n = settings.n;
    if (param == "n") return QStringLiteral("64:1024:*2");
    if (param == "layers" || param == "model_layers") return QStringLiteral("1:8");
    if (param == "d") return QStringLiteral("16:128:*2");
    if (param == "h") return QStringLiteral("1:16:*2");
    if (param == "h_kv") return QStringLiteral("1:%1:*2").arg(std::max(2, settings.heads));
    if (param == "input_scale") return QStringLiteral("1/16:4:*2");
    if (param == "decode" || param == "query")
        return QStringLiteral("0:%1:%2").arg(n - 1).arg(std::max<std::int64_t>(1, n / 32));
    return QStringLiteral("1:16");
}

} // namespace

AnimationDialog::AnimationDialog(const QString& view, const LabSettings& settings, QWidget* parent)
    : QDialog(parent), m_view(view), m_settings(settings) {
    setObjectName(QStringLiteral("animationDialog"));
    setWindowTitle(tr("Export animation"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_param = new QComboBox;
    for (const std::string& param : animationParams(view, settings))
        m_param->addItem(QString::fromStdString(param));
    m_range = new QLineEdit;
    m_range->setPlaceholderText(QStringLiteral("FROM:TO[:STEP|:*FACTOR]"));
    m_frames = new QLabel;
    m_frames->setWordWrap(true);
    m_fps = new QDoubleSpinBox;
    m_fps->setRange(0.1, 60);
    m_fps->setValue(2);
    m_fps->setSuffix(tr(" frames/s"));
    m_hold = new QDoubleSpinBox;
    m_hold->setRange(0, 600);
    m_hold->setSuffix(tr(" s"));
    m_freeAxes = new QCheckBox(tr("each frame fits its own axes and colour scales"));
    m_path = new QLineEdit(view + QStringLiteral(".gif"));
    auto* browse = new QPushButton(tr("Browse…"));
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path);
    pathRow->addWidget(browse);
    form->addRow(tr("Sweep"), m_param);
    form->addRow(tr("Range"), m_range);
    form->addRow(QString(), m_frames);
    form->addRow(tr("Frame rate"), m_fps);
    form->addRow(tr("Hold the last frame"), m_hold);
    form->addRow(tr("Free axes"), m_freeAxes);
    form->addRow(tr("File (.gif, .mp4, .tex)"), pathRow);
    layout->addLayout(form);
    auto* previews = new QHBoxLayout;
    for (QLabel*& preview : m_previews) {
        preview = new QLabel(tr("(preview)"));
        preview->setAlignment(Qt::AlignCenter);
        preview->setMinimumSize(kPreviewWidth, kPreviewWidth * 2 / 3);
        preview->setFrameShape(QFrame::StyledPanel);
        previews->addWidget(preview);
    }
    layout->addLayout(previews);
    m_progress = new QProgressBar;
    m_progress->setVisible(false);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("animationStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_previewButton = buttons->addButton(tr("Preview first and last"), QDialogButtonBox::ActionRole);
    m_export = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    m_cancel = buttons->addButton(tr("Cancel export"), QDialogButtonBox::ActionRole);
    m_cancel->setEnabled(false);
    layout->addWidget(buttons);

    connect(m_param, &QComboBox::currentTextChanged, this, [this](const QString& param) {
        m_range->setText(defaultRange(param.toStdString(), m_settings));
    });
    connect(m_range, &QLineEdit::textChanged, this, &AnimationDialog::checkFields);
    connect(browse, &QPushButton::clicked, this, &AnimationDialog::browse);
    connect(m_previewButton, &QPushButton::clicked, this, &AnimationDialog::startPreview);
    connect(m_export, &QPushButton::clicked, this, &AnimationDialog::startExport);
    connect(m_cancel, &QPushButton::clicked, this, &AnimationDialog::cancelExport);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(this, &QDialog::rejected, this, &AnimationDialog::cancelExport);
    m_range->setText(defaultRange(m_param->currentText().toStdString(), m_settings));
    checkFields();
}

AnimationDialog::~AnimationDialog() = default;

AnimationSweep AnimationDialog::sweep() const {
    return parseAnimationSweep(m_view, m_settings,
                               m_param->currentText().toStdString() + "=" + m_range->text().toStdString());
}

AnimationOutput AnimationDialog::output() const {
    AnimationOutput output;
    output.path = m_path->text();
    output.fps = m_fps->value();
    output.holdLastSeconds = m_hold->value();
    output.freeAxes = m_freeAxes->isChecked();
    output.inputs = settingsInputFiles(m_settings);
    output.description =
        tr("the %1 view over %2 = %3").arg(m_view, m_param->currentText(), m_range->text()).toStdString();
    return output;
}

void AnimationDialog::checkFields() {
    try {
        m_frames->setText(tr("%1 frames").arg(sweep().values.size()));
        m_frames->setStyleSheet(QString());
    } catch (const InputError& error) {
        m_frames->setText(QString::fromUtf8(error.what()));
        m_frames->setStyleSheet(QStringLiteral("color: #b00020;"));
    }
}

void AnimationDialog::browse() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export animation"), m_path->text(),
        tr("GIF animation (*.gif);;MP4 video, H.264 (*.mp4);;Beamer frames (*.tex)"));
    if (!path.isEmpty()) m_path->setText(path);
}

void AnimationDialog::setRunning(bool running) {
    m_export->setEnabled(!running);
    m_previewButton->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_progress->setVisible(running);
}

void AnimationDialog::startExport() {
    if (m_renderer && m_renderer->running()) return;
    try {
        const AnimationSweep frames = sweep();
        const AnimationOutput target = output();
        requireAnimationOutput(target, frames.values.size());
        m_renderer =
            std::make_unique<AnimationRenderer>(createFigureView(m_view), frames, m_settings, target);
        m_frameCount = frames.values.size();
    } catch (const InputError& error) {
        m_status->setText(QString::fromUtf8(error.what()));
        return;
    }
    connect(m_renderer.get(), &AnimationRenderer::progressChanged, m_progress, [this](int done, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
    });
    connect(m_renderer.get(), &AnimationRenderer::framePainted, this, [this](int index, const QImage& image) {
        if (index == 0) showPreview(0, image);
        if (static_cast<std::size_t>(index) + 1 == m_frameCount) showPreview(1, image);
    });
    connect(m_renderer.get(), &AnimationRenderer::finished, this, [this](const QString& path) {
        setRunning(false);
        m_status->setText(tr("exported %1").arg(path));
        emit exportFinished(path);
    });
    connect(m_renderer.get(), &AnimationRenderer::failed, this, [this](const QString& message) {
        setRunning(false);
        m_status->setText(message);
    });
    setRunning(true);
    m_status->setText(tr("rendering the frames…"));
    m_renderer->start();
}

void AnimationDialog::startPreview() {
    if (m_renderer && m_renderer->running()) return;
    try {
        AnimationSweep ends = sweep();
        ends.values = {ends.values.front(), ends.values.back()};
        AnimationOutput preview = output();
        preview.previewOnly = true;
        m_renderer = std::make_unique<AnimationRenderer>(createFigureView(m_view), ends, m_settings, preview);
    } catch (const InputError& error) {
        m_status->setText(QString::fromUtf8(error.what()));
        return;
    }
    connect(m_renderer.get(), &AnimationRenderer::framePainted, this, &AnimationDialog::showPreview);
    connect(m_renderer.get(), &AnimationRenderer::finished, this, [this] {
        setRunning(false);
        m_status->clear();
        emit previewFinished();
    });
    connect(m_renderer.get(), &AnimationRenderer::failed, this, [this](const QString& message) {
        setRunning(false);
        m_status->setText(message);
    });
    setRunning(true);
    m_status->setText(tr("rendering the first and last frame…"));
    m_renderer->start();
}

void AnimationDialog::cancelExport() {
    if (!m_renderer || !m_renderer->running()) return;
    m_renderer->cancel();
    setRunning(false);
    m_status->setText(tr("cancelled: no file written"));
}

void AnimationDialog::showPreview(int index, const QImage& image) {
    m_previewImages[index] = image;
    m_previews[index]->setPixmap(
        QPixmap::fromImage(image.scaledToWidth(kPreviewWidth, Qt::SmoothTransformation)));
}

void addExportAnimationAction(QMenu* file, MainWindow* window) {
    QAction* action = file->addAction(AnimationDialog::tr("Export &animation…"));
    action->setObjectName(QStringLiteral("exportAnimation"));
    QObject::connect(action, &QAction::triggered, window, [window] {
        const FigureView* view = window->currentView();
        if (!view) return;
        auto* dialog = new AnimationDialog(view->viewName(), window->labSettings(), window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
}

} // namespace attnlab
