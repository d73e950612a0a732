#include "views/figures/figure_view.h"
#include "views/figures/pattern_grid.h"
#include "views/plot/figure_text.h"
#include "views/plot/fitted_text.h"
#include "views/plot/text_style.h"

#include "core/analysis/panel_spec.h"
#include "core/patterns/token_grid.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <exception>

namespace attnlab {

namespace {

QString overridesText(const ParamOverrides& params) {
    QStringList items;
    for (const auto& [key, value] : params) items << QString::fromStdString(key + "=" + value);
    return items.join(QStringLiteral(", "));
}

QString variantText(const VariantChoice& choice) {
    const QString params = overridesText(choice.params);
    return QString::fromStdString(choice.variant) + (params.isEmpty() ? QString() : " (" + params + ")");
}

// The chosen variants; panels that differ only in their token order are one variant "in the orders …".
QString variantsText(const LabSettings& settings) {
    QStringList variants, orders;
    bool ownOrders = false;
    for (const auto& choice : chosenVariants(settings)) {
        variants << variantText(choice);
        ownOrders = ownOrders || !choice.order.empty();
        const std::string order = choice.order.empty() ? settings.order : choice.order;
        orders << QString::fromStdString(order.empty() ? std::string("raster") : order);
    }
    if (!ownOrders) return variants.join(QStringLiteral(" | "));
    QStringList distinct = variants;
    distinct.removeDuplicates();
    if (distinct.size() == 1) return FigureView::tr("%1 in the orders %2").arg(distinct.front(), orders.join(QStringLiteral(" | ")));
    for (qsizetype k = 0; k < variants.size(); ++k) variants[k] += FigureView::tr(" in %1 order").arg(orders[k]);
    return variants.join(QStringLiteral(" | "));
}

QString sourceText(const LabSettings& settings) {
    switch (settings.source) {
    case InputSource::RandomGaussian: return FigureView::tr("Gaussian, seed %1").arg(settings.inputSeed);
    case InputSource::LocalSimilarity: return FigureView::tr("local similarity, seed %1").arg(settings.inputSeed);
    case InputSource::NpyFiles: return FigureView::tr("NPY %1").arg(QString::fromStdString(settings.qPath));
    }
    return {};
}

} // namespace

QString FigureView::settingsCaption(const LabSettings& settings) {
    const bool several = chosenVariants(settings).size() > 1;
    QString caption = FigureView::tr("%1=%2   n=%3   d=%4   h=%5   causal=%6   input=%7")
                          .arg(several ? FigureView::tr("variants") : FigureView::tr("variant"), variantsText(settings))
                          .arg(settings.n)
                          .arg(settings.d)
                          .arg(settings.heads)
                          .arg(askedCausal(settings) ? FigureView::tr("yes") : FigureView::tr("no"), sourceText(settings));
    if (const QString grid = gridText(settings); !grid.isEmpty()) caption += FigureView::tr("   grid=%1").arg(grid);
    if (const std::string note = presetLengthNote(settings); !note.empty()) caption += QStringLiteral("   [%1]").arg(QString::fromStdString(note));
    return caption;
}

QString FigureView::gridText(const LabSettings& settings) {
    if (settings.grid.empty()) return {};
    try {
        return gridDescription(*makeTokenGrid(settings.grid, settings.order));
    } catch (const std::exception&) {
        return {}; // the settings' own check names the problem
    }
}

QRectF FigureView::paintFrame(QPainter& painter, const QRectF& rect, const QString& title, const QString& caption) {
    painter.fillRect(rect, Qt::white);
    painter.setPen(Qt::black);
    QFont titleFont = painter.font();
    titleFont.setPointSizeF(12.0);
    titleFont = headingFont(titleFont, title);
    QFont captionFont = painter.font();
    captionFont.setPointSizeF(smallPrintPoints(8.0));

    const double margin = 8.0;
    const QFontMetricsF titleMetrics(titleFont, painter.device());
    const QRectF titleRect(rect.left() + margin, rect.top() + margin, rect.width() - 2 * margin, titleMetrics.height());
    painter.setFont(titleFont);
    // A long title shrinks to fit its line before it is elided (the accuracy view's in the window's tab).
    drawFittedText(painter, titleRect, Qt::AlignHCenter | Qt::AlignTop | Qt::TextSingleLine, title);

    const QFontMetricsF captionMetrics(captionFont, painter.device());
    const QRectF captionBounds = captionMetrics.boundingRect(QRectF(0, 0, rect.width() - 2 * margin, 1e6),
                                                             Qt::TextWordWrap | Qt::AlignHCenter, caption);
    const QRectF captionRect(rect.left() + margin, rect.bottom() - margin - captionBounds.height(),
                             rect.width() - 2 * margin, captionBounds.height());
    painter.setFont(captionFont);
    painter.setPen(QColor(0x33, 0x33, 0x33));
    drawAlignedText(painter, captionRect, Qt::TextWordWrap | Qt::AlignHCenter, caption);
    painter.setPen(Qt::black);
    QFont bodyFont = captionFont;
    bodyFont.setPointSizeF(kBodyPoints);
    painter.setFont(bodyFont);

    return QRectF(rect.left() + margin, titleRect.bottom() + margin, rect.width() - 2 * margin,
                  captionRect.top() - titleRect.bottom() - 2 * margin);
}

void FigureView::paintFigure(QPainter& painter, const QRectF& rect) const {
    const double scale = m_settings.fontScale;
    if (scale == 1.0) return drawFigure(painter, rect);
    const SmallPrintFloor smallPrint(scale > 1.0 ? kBodyPoints : 0.0);
    painter.save();
    painter.translate(rect.topLeft());
    painter.scale(scale, scale);
    drawFigure(painter, QRectF(QPointF(0, 0), rect.size() / scale));
    painter.restore();
}

QTransform FigureView::screenTransform() const {
    QTransform transform;
    if (m_settings.slideMode) {
        const double shrink = std::min(width() / kSlideSize.width(), height() / kSlideSize.height());
        transform.translate((width() - kSlideSize.width() * shrink) / 2, (height() - kSlideSize.height() * shrink) / 2);
        transform.scale(shrink, shrink);
    }
    transform.scale(m_settings.fontScale, m_settings.fontScale);
    return transform;
}

QRectF FigureView::layoutRect() const {
    const QSizeF screen = m_settings.slideMode ? kSlideSize : QSizeF(size());
    return QRectF(QPointF(0, 0), screen / m_settings.fontScale);
}

QPointF FigureView::toLayout(const QPointF& widgetPoint) const { return screenTransform().inverted().map(widgetPoint); }

void FigureView::setSettings(const LabSettings& settings) {
    const LabSettings before = m_settings;
    m_settings = settings;
    if (needsWork(before, settings)) m_stale = true;
    if (m_stale && isVisible()) beginWork();
    update();
}

void FigureView::setFrameMark(const FrameMark& mark) {
    if (mark == m_frameMark) return;
    m_frameMark = mark;
    frameMarkChanged();
    update();
}

void FigureView::beginWork() {
    m_stale = false;
    m_cancelledByUser = false;
    startWork();
}

void FigureView::markStale() {
    m_stale = true;
    if (isVisible()) beginWork();
}

void FigureView::cancelByUser() {
    if (!busy()) return;
    cancelWork();
    m_stale = true;
    m_cancelledByUser = true;
    emit statusMessage(FigureView::tr("%1: cancelled").arg(title()));
    update();
}

void FigureView::recompute() {
    markStale();
    update();
}

void FigureView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_stale) beginWork();
}

void FigureView::hideEvent(QHideEvent* event) {
    QWidget::hideEvent(event);
    if (busy() && cancelWork()) m_stale = true;
}

void FigureView::watchJobs(JobRunner& jobs) {
    connect(&jobs, &JobRunner::busyChanged, this, &FigureView::busyChanged);
    connect(&jobs, &JobRunner::failed, this, [this](const QString& message) {
        m_jobError = message;
        emit statusMessage(message);
        update();
    });
    connect(&jobs, &JobRunner::errorCleared, this, [this] {
        m_jobError.clear();
        update();
    });
}

void FigureView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    if (m_settings.slideMode) painter.fillRect(rect(), QColor(0x60, 0x60, 0x60));
    painter.save();
    painter.setTransform(screenTransform(), true);
    {
        const SmallPrintFloor smallPrint(m_settings.fontScale > 1.0 ? kBodyPoints : 0.0);
        drawFigure(painter, layoutRect());
    }
    painter.restore();
    if (m_jobError.isEmpty() && !m_cancelledByUser) return;
    // On screen only: the figure keeps its last good result, and says why it is not current.
    const QString note = m_jobError.isEmpty()
                             ? FigureView::tr("cancelled: the figure shows the last finished result (View → Recompute, F5)")
                             : FigureView::tr("error: %1").arg(m_jobError);
    const QRectF line(0, height() - 22, width(), 22);
    painter.fillRect(line, m_jobError.isEmpty() ? QColor(0xFF, 0xF4, 0xD6) : QColor(0xFF, 0xEB, 0xEE));
    painter.setPen(m_jobError.isEmpty() ? QColor(0x6B, 0x4E, 0x00) : QColor(0xB0, 0x00, 0x20));
    drawAlignedText(painter, line.adjusted(8, 0, -8, 0), Qt::AlignLeft | Qt::AlignVCenter,
                    QFontMetricsF(painter.font()).elidedText(note, Qt::ElideRight, line.width() - 16));
}

} // namespace attnlab
