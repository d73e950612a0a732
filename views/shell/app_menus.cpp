#include "views/shell/app_menus.h"

#include "views/i18n/language.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <map>

#ifndef ATTNLAB_VERSION
#define ATTNLAB_VERSION "unknown"
#endif

namespace attnlab {

namespace {

// The translation context of these menus and dialogs.
struct AppMenus {
    Q_DECLARE_TR_FUNCTIONS(AppMenus)
};

void offerRestart(QMainWindow* window, const QString& language) {
    auto* box = new QMessageBox(QMessageBox::Information, AppMenus::tr("Language"),
                                AppMenus::tr("The language changes to %1 when AttnLab starts again.").arg(languageNativeName(language)),
                                QMessageBox::NoButton, window);
    box->setObjectName(QStringLiteral("languageRestart"));
    QPushButton* restart = box->addButton(AppMenus::tr("Restart now"), QMessageBox::AcceptRole);
    box->addButton(AppMenus::tr("Later"), QMessageBox::RejectRole);
    box->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(box, &QMessageBox::buttonClicked, window, [window, restart](QAbstractButton* clicked) {
        if (clicked != restart) return;
        if (window->close()) QProcess::startDetached(QCoreApplication::applicationFilePath(), QCoreApplication::arguments().mid(1));
    });
    box->open();
}

// A dialog with rich text; `name` is its object name.
void showTextDialog(QMainWindow* window, const QString& name, const QString& title, const QString& html) {
    auto* dialog = new QDialog(window);
    dialog->setObjectName(name);
    dialog->setWindowTitle(title);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* layout = new QVBoxLayout(dialog);
    auto* text = new QTextBrowser(dialog);
    text->setOpenExternalLinks(true);
    text->setHtml(html);
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog->resize(640, 520);
    dialog->open();
}

QString helpHtml() {
    QString html = QStringLiteral("<h2>%1</h2><p>%2</p>").arg(AppMenus::tr("AttnLab"), AppMenus::tr("AttnLab runs the common attention variants on the CPU "
        "and shows their patterns, receptive fields, measured timing curves and FLOP breakdowns live while you change the sequence "
        "length n, the head size d and the number of heads h."));
    html += QStringLiteral("<h3>%1</h3><p>%2</p>").arg(AppMenus::tr("Parameter panel"), AppMenus::tr("On the left: the variant (grouped by family, with "
        "its summary), the shape (n, d, h, the head shown, causal), every parameter of the variant with its default and range (↺ "
        "resets it), the inputs Q, K, V (seeded Gaussian, local similarity or NPY files), model shapes, display options and compare "
        "mode (2–4 variants side by side on the same inputs). A field changes with the mouse wheel only after a click gives it focus."));
    html += QStringLiteral("<h3>%1</h3><ul><li>%2</li><li>%3</li><li>%4</li><li>%5</li><li>%6</li><li>%7</li></ul>")
                .arg(AppMenus::tr("Views"),
                     AppMenus::tr("<b>Pattern</b>: the mask M or the attention weights W of one head. Hover names the cell, a click highlights "
                        "what a query row attends to, the wheel zooms and a drag pans; a double click shows everything."),
                     AppMenus::tr("<b>Receptive field</b>: how many layers a query needs to reach each key, and the reach against the "
                        "number of layers."),
                     AppMenus::tr("<b>Timing</b>: measured wall time against n (log-log) beside the cost model's prediction, measured in "
                        "the background while the tab is shown."),
                     AppMenus::tr("<b>FLOP breakdown</b>: the cost of one layer split into projections, attention core and FFN against n."),
                     AppMenus::tr("<b>Accuracy</b>: how far the approximating variants are from full softmax attention."),
                     AppMenus::tr("<b>ImGui lab</b>: the same pattern drawn live with Dear ImGui (needs OpenGL)."));
    html += QStringLiteral("<h3>%1</h3><p>%2</p>").arg(AppMenus::tr("Export"), AppMenus::tr("File → Export figure saves the current figure as PNG, SVG "
        "or PDF, File → Export data saves its numbers as CSV, and sessions (File → Save session) keep every setting."));
    html += QStringLiteral("<h3>%1</h3><p>%2</p><pre>attnlab figure --view pattern --out pattern.svg\nattnlab run --help\n"
                           "attnlab bench --help</pre>")
                .arg(AppMenus::tr("Command line"), AppMenus::tr("Every figure and measurement is also available without a window; "
                                            "<code>attnlab --help</code> lists the subcommands."));
    return html;
}

QString shortcutsHtml(const QMainWindow* window) {
    // Menu order: the menus of the menu bar, each action with a shortcut once.
    QString rows;
    for (const QAction* menuAction : window->menuBar()->actions()) {
        const QMenu* menu = menuAction->menu();
        if (!menu) continue;
        for (const QAction* action : menu->findChildren<QAction*>()) {
            if (action->shortcut().isEmpty()) continue;
            rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                        .arg(action->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(),
                             QString(action->text()).remove(QLatin1Char('&')).toHtmlEscaped());
        }
    }
    return QStringLiteral("<table cellspacing='6'>%1</table><p>%2</p>")
        .arg(rows, AppMenus::tr("In the pattern view: the wheel zooms at the cursor, a drag pans, a click highlights a query row and a "
                      "double click shows everything."));
}

QString aboutText() {
    return AppMenus::tr("<h3>AttnLab %1</h3><p>See and measure what attention mechanisms cost: sparse, linear, low-rank and "
              "data-dependent variants against full softmax attention.</p><p>Built with Qt %2 and Dear ImGui.</p>")
        .arg(QStringLiteral(ATTNLAB_VERSION), QString::fromLatin1(qVersion()));
}

} // namespace

void addLanguageMenu(QMenu* viewMenu, QMainWindow* window) {
    QMenu* menu = viewMenu->addMenu(AppMenus::tr("&Language (applies after restart)"));
    menu->setObjectName(QStringLiteral("languageMenu"));
    auto* group = new QActionGroup(menu);
    const QString chosen = storedLanguage().isEmpty() ? currentLanguage() : storedLanguage();
    for (const QString& language : uiLanguages()) {
        QAction* action = menu->addAction(languageNativeName(language));
        action->setObjectName(QStringLiteral("language_") + language);
        action->setCheckable(true);
        action->setChecked(language == chosen);
        group->addAction(action);
        QObject::connect(action, &QAction::triggered, window, [window, language] {
            storeLanguage(language);
            if (language != currentLanguage()) offerRestart(window, language);
        });
    }
}

void addHelpMenu(QMainWindow* window) {
    QMenu* help = window->menuBar()->addMenu(AppMenus::tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction* guide = help->addAction(AppMenus::tr("AttnLab &help"));
    guide->setShortcut(QKeySequence::HelpContents);
    QObject::connect(guide, &QAction::triggered, window,
                     [window] { showTextDialog(window, QStringLiteral("helpDialog"), AppMenus::tr("AttnLab help"), helpHtml()); });
    QAction* keys = help->addAction(AppMenus::tr("&Keyboard shortcuts"));
    QObject::connect(keys, &QAction::triggered, window, [window] {
        showTextDialog(window, QStringLiteral("shortcutsDialog"), AppMenus::tr("Keyboard shortcuts"), shortcutsHtml(window));
    });
    help->addSeparator();
    QAction* about = help->addAction(AppMenus::tr("&About AttnLab"));
    QObject::connect(about, &QAction::triggered, window, [window] {
        auto* box = new QMessageBox(QMessageBox::NoIcon, AppMenus::tr("About AttnLab"), aboutText(), QMessageBox::Ok, window);
        box->setObjectName(QStringLiteral("aboutDialog"));
        box->setIconPixmap(QApplication::windowIcon().pixmap(64, 64));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

} // namespace attnlab
