#include "app/python/python_figure.h"

#include "app/figure_command.h"
#include "app/headless_qt.h"
#include "app/python/python_animation.h"
#include "app/python/python_args.h"

#include "core/errors.h"
#include "core/registry.h"

#include <QApplication>

#include <algorithm>
#include <memory>
#include <string>

namespace py = pybind11;

namespace attnlab {

namespace {

} // namespace

// The module's one QApplication, on the offscreen platform when there is no display, made by the first
// figure and kept for the life of the process (Qt allows one per process, in its main thread).
void requireFigureThread(const char* what) {
    const py::module_ threading = py::module_::import("threading");
    if (!threading.attr("current_thread")().is(threading.attr("main_thread")()))
        throw InputError(std::string(what) +
                         ": figures are made and drawn in Python's main thread, where their Qt application lives; "
                         "this call came from another thread");
}

void ensureFigureApplication() {
    if (QApplication::instance()) return;
    useOffscreenWithoutDisplay();
    quietQtMessages();
    static int argc = 1;
    static char program[] = "attnlab";
    static char* argv[] = {program, nullptr};
    new QApplication(argc, argv); // NOLINT: lives until exit, as the process's application object
}

namespace {

// One computed view: every export is drawn from this one computation, in the figure's language.
class Figure {
  public:
    explicit Figure(FigureRequest request) : m_request(std::move(request)) {
        requireFigureThread("attnlab.figure");
        ensureFigureApplication();
        const FigureLanguage language(m_request.language);
        const py::gil_scoped_release release;
        m_view = computeFigure(m_request);
    }

    std::string view() const { return m_request.view.toStdString(); }

    // The bytes of the file an export to `name` (its extension names the format) would write first.
    std::string rendered(const char* name) const {
        requireFigureThread("attnlab.Figure");
        const FigureLanguage language(m_request.language);
        return renderExport(*m_view, QString::fromUtf8(name), m_request.options).front().bytes;
    }

    // The <svg> element alone: notebooks embed it in HTML, where an XML declaration has no place.
    py::str svg() const {
        const std::string file = rendered("figure.svg");
        return py::str(file.substr(std::min(file.find("<svg"), file.size())));
    }

    // At the --dpi resolution, shown at the figure's size in pixels (96 dpi).
    py::tuple png() const {
        py::dict size;
        size["width"] = static_cast<int>(m_request.options.size.width());
        size["height"] = static_cast<int>(m_request.options.size.height());
        return py::make_tuple(py::bytes(rendered("figure.png")), size);
    }

    void save(const py::object& path) const {
        const std::string destination =
            py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>();
        exportFormatOf(QString::fromStdString(destination));
        checkOutputPath("attnlab figure", destination);
        requireFigureThread("attnlab.Figure.save");
        const FigureLanguage language(m_request.language);
        exportFigure(*m_view, QString::fromStdString(destination), m_request.options, m_request.inputs);
    }

    // The CSV's rows, numbers as numbers.
    py::list data() const {
        const py::module_ csv = py::module_::import("csv");
        const py::object lines = py::str(rendered("figure.csv")).attr("splitlines")();
        py::list rows;
        for (const auto row : csv.attr("DictReader")(lines)) {
            py::dict record;
            for (const auto& [key, value] : row.cast<py::dict>())
                record[key] = number(value);
            rows.append(record);
        }
        return rows;
    }

    std::string repr() const {
        return "<attnlab.Figure " + view() + ": " + m_view->caption().toStdString() + ">";
    }

  private:
    static py::object number(const py::handle& text) {
        const std::string value = text.is_none() ? std::string() : text.cast<std::string>();
        for (const char* type : {"int", "float"}) {
            try {
                return py::module_::import("builtins").attr(type)(value);
            } catch (const py::error_already_set&) {
            }
        }
        return py::reinterpret_borrow<py::object>(text);
    }

    FigureRequest m_request;
    std::unique_ptr<FigureView> m_view;
};

} // namespace

void defineFigure(py::module_& module) {
    py::class_<Figure>(module, "Figure", "One view computed headless; Jupyter shows it inline (SVG, or PNG).")
        .def_property_readonly("view", &Figure::view)
        .def("_repr_svg_", &Figure::svg)
        .def("_repr_png_", &Figure::png)
        .def("save", &Figure::save, py::arg("path"),
             "Writes the figure in the format the extension names (.png, .svg, .pdf, .tex, .csv), as "
             "`attnlab figure -o`.")
        .def_property_readonly("data", &Figure::data, "The CSV's rows as a list of dicts.")
        .def("__repr__", &Figure::repr);
    module.def(
        "figure",
        [](const py::object& view, const py::kwargs& keywords) {
            if (!py::isinstance<py::str>(view))
                throw InputError("attnlab figure: name the view (pattern, reach, timing, flops, accuracy, "
                                 "inference, roofline)");
            // A keyword is a parameter when the variant or one of the compared variants has it.
            std::vector<const VariantInfo*> variants;
            for (const char* option : {"variant", "compare"}) {
                if (!keywords.contains(option)) continue;
                const auto named = knownVariants(keywords[option]);
                variants.insert(variants.end(), named.begin(), named.end());
            }
            if (!keywords.contains("variant") && !keywords.contains("compare") && !keywords.contains("panel"))
                variants.push_back(&requireVariant("full")); // the view's default variant
            std::vector<std::string> args = {view.cast<std::string>()};
            const bool animated = keywords.contains("animate");
            if (!keywords.contains("dpi") && !animated) args.insert(args.end(), {"--dpi", "192"});
            const std::vector<std::string> options = optionArgs(keywords, variants, {"panel"});
            args.insert(args.end(), options.begin(), options.end());
            if (animated) return animationFigure(std::move(args));
            std::optional<FigureRequest> request = figureRequest(args, false);
            if (!request)
                throw InputError(
                    "attnlab figure: the listings (--preset list, --model list) are for the command line");
            return py::cast(Figure(std::move(*request)));
        },
        py::arg("view"),
        "The view computed headless with the options of `attnlab figure` as keywords (docs/python.md).");
}

} // namespace attnlab
