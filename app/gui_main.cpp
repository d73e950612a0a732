#include "app/gui_main.h"

#include "core/errors.h"
#include "core/registry.h"

#include <QApplication>
#include <QListWidget>
#include <QMainWindow>

namespace attnlab {

int runGui(int argc, char** argv) {
    QApplication app(argc, argv);
    QMainWindow window;
    auto* list = new QListWidget(&window);
    for (const auto& variant : allVariants())
        list->addItem(QString::fromStdString(variant.displayName + " — " + variant.summary));
    window.setCentralWidget(list);
    window.resize(900, 600);
    window.show();
    return app.exec();
}

int figureCommand(const std::vector<std::string>&) { throw InputError("attnlab figure: not built yet"); }

} // namespace attnlab
