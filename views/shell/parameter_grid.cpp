#include "views/shell/parameter_panel.h"

#include "core/errors.h"
#include "core/patterns/token_grid.h"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>
#include <utility>

namespace attnlab {

void ParameterPanel::addGridRows(QFormLayout* form, QWidget* group) {
    m_grid = new QLineEdit(group);
    m_grid->setObjectName(QStringLiteral("gridEdit"));
    m_grid->setPlaceholderText(tr("none, or H,W or T,H,W"));
    m_grid->setToolTip(tr("Tokens on an image (H,W) or video (T,H,W) grid: n becomes the number of cells, and the "
                          "pattern figures add the grid view of one query cell"));
    form->addRow(tr("grid"), m_grid);
    m_order = new QLineEdit(group);
    m_order->setObjectName(QStringLiteral("orderEdit"));
    m_order->setPlaceholderText(tr("raster, tiles:a,b[,c] or morton"));
    m_order->setToolTip(tr("Which cell each sequence position holds: row by row (raster), tile by tile, or in Z order"));
    form->addRow(tr("order"), m_order);
    m_gridQuery = new QSpinBox(group);
    m_gridQuery->setObjectName(QStringLiteral("gridQuery"));
    m_gridQuery->setRange(-1, kMaxN - 1);
    m_gridQuery->setSpecialValueText(tr("centre cell"));
    m_gridQuery->setToolTip(tr("The grid view's query cell as a sequence position; the figures also move it by hover, "
                               "click and the arrow keys"));
    form->addRow(tr("grid query"), m_gridQuery);
    m_gridError = new QLabel(group);
    m_gridError->setObjectName(QStringLiteral("gridError"));
    m_gridError->setWordWrap(true);
    m_gridError->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_gridError->setVisible(false);
    form->addRow(QString(), m_gridError);
    for (QLineEdit* edit : {m_grid, m_order}) connect(edit, &QLineEdit::editingFinished, this, [this] { applyGridText(); });
    connect(m_gridQuery, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating) return;
        m_settings.gridQuery = value;
        commit();
    });
}

void ParameterPanel::applyGridText() {
    if (m_updating) return;
    const std::string grid = m_grid->text().trimmed().toStdString(), order = m_order->text().trimmed().toStdString();
    if (grid == m_settings.grid && order == m_settings.order) return;
    QString error;
    try {
        if (grid.empty() && !order.empty()) throw InputError("an order needs a grid");
        if (!grid.empty()) {
            const TokenGridPtr parsed = makeTokenGrid(grid, order);
            if (parsed->cells() > kMaxN) throw InputError("the grid " + parsed->sizeText() + " has more than " + std::to_string(kMaxN) + " cells");
            if (grid != m_settings.grid) m_settings.gridQuery = -1;
            m_settings.n = parsed->cells(); // the grid gives n
            m_settings.queries = std::min(m_settings.queries, m_settings.n);
        }
    } catch (const InputError& problem) {
        error = QString::fromStdString(problem.what());
    }
    // As the expression field: a text that is not valid is marked and named, and the figures keep the last valid grid.
    const QString mark = QStringLiteral("QLineEdit { border: 1px solid #b00020; }");
    m_grid->setStyleSheet(error.isEmpty() ? QString() : mark);
    m_order->setStyleSheet(error.isEmpty() ? QString() : mark);
    m_gridError->setText(error.isEmpty() ? QString() : tr("%1 (the figures keep the last valid grid)").arg(error));
    m_gridError->setVisible(!error.isEmpty());
    if (!error.isEmpty()) return;
    m_settings.grid = grid;
    m_settings.order = order;
    commit();
}

QString ParameterPanel::gridError() const { return m_gridError->isHidden() ? QString() : m_gridError->text(); }

void ParameterPanel::refreshGridWidgets() {
    const bool wasUpdating = std::exchange(m_updating, true);
    if (m_gridError->isHidden()) { // an invalid text stays in the field until it is fixed
        m_grid->setText(QString::fromStdString(m_settings.grid));
        m_order->setText(QString::fromStdString(m_settings.order));
    }
    m_gridQuery->setMaximum(static_cast<int>(std::max<std::int64_t>(0, m_settings.n - 1)));
    m_gridQuery->setValue(static_cast<int>(m_settings.gridQuery));
    m_gridQuery->setEnabled(!m_settings.grid.empty());
    m_updating = wasUpdating;
}

} // namespace attnlab
