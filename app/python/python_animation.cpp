#include "app/python/python_animation.h"

#include "app/figure_command.h"
#include "app/python/python_figure.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace attnlab {

namespace {

// A folder of its own in the system's temporary directory, removed with everything in it.
class ScratchFolder {
  public:
    ScratchFolder() : m_path(py::module_::import("tempfile").attr("mkdtemp")(py::arg("prefix") = "attnlab-")) {}
    ~ScratchFolder() { py::module_::import("shutil").attr("rmtree")(m_path, py::arg("ignore_errors") = true); }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    std::string file(const char* name) const { return m_path.cast<std::string>() + "/" + name; }

  private:
    py::object m_path;
};

// One sweep of one view: every check of `attnlab figure --animate` made when it is created, the frames
// rendered when it is saved (the format by the extension, as -o) or shown (a GIF inline).
class Animation {
  public:
    explicit Animation(std::vector<std::string> args) : m_args(std::move(args)) {
        requireFigureThread("attnlab.figure");
        ensureFigureApplication();
        const ScratchFolder scratch;
        const FigureRequest checked = request(scratch.file("check.gif"));
        m_view = checked.view.toStdString();
        m_param = checked.animation->sweep.param;
        m_range = checked.animation->sweep.range;
        for (const double value : checked.animation->sweep.values)
            m_values.append(checked.animation->sweep.integral ? py::object(py::int_(static_cast<long long>(value)))
                                                              : py::object(py::float_(value)));
    }

    void save(const py::object& path) const {
        write(request(py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>()));
    }

    // An <img> with the GIF in its source: notebooks (and their HTML exports) play it where they show HTML.
    py::str html() const {
        const ScratchFolder scratch;
        const std::string path = scratch.file("animation.gif");
        write(request(path));
        const py::object bytes = py::module_::import("pathlib").attr("Path")(path).attr("read_bytes")();
        const py::object encoded = py::module_::import("base64").attr("b64encode")(bytes).attr("decode")("ascii");
        return py::str("<img alt=\"" + description() + "\" src=\"data:image/gif;base64," + encoded.cast<std::string>() +
                       "\"/>");
    }

    const py::list& values() const { return m_values; }
    std::size_t frames() const { return py::len(m_values); }
    std::string description() const { return m_view + ": " + m_param + "=" + m_range; }
    std::string repr() const {
        return "<attnlab.Animation " + description() + ", " + std::to_string(frames()) + " frames>";
    }

  private:
    FigureRequest request(const std::string& out) const {
        std::vector<std::string> args = m_args;
        args.insert(args.end(), {"-o", out});
        return std::move(*figureRequest(args, true));
    }

    static void write(const FigureRequest& request) {
        requireFigureThread("attnlab.Animation");
        const FigureLanguage language(request.language);
        const py::gil_scoped_release release;
        writeFigureAnimation(*request.animation, request.view, request.settings);
    }

    std::vector<std::string> m_args;
    std::string m_view, m_param, m_range;
    py::list m_values;
};

} // namespace

py::object animationFigure(std::vector<std::string> args) { return py::cast(Animation(std::move(args))); }

void defineAnimation(py::module_& module) {
    py::class_<Animation>(module, "Animation",
                          "One view swept over a parameter (figure(..., animate=...)); Jupyter plays it inline.")
        .def("save", &Animation::save, py::arg("path"),
             "Renders every frame and writes the animation the extension names (.gif, .mp4, or .tex with a PDF "
             "per frame beside it), as `attnlab figure --animate -o`.")
        .def_property_readonly("values", &Animation::values, "The swept value of each frame.")
        .def_property_readonly("frames", &Animation::frames, "The number of frames.")
        .def("_repr_html_", &Animation::html)
        .def("__repr__", &Animation::repr);
}

} // namespace attnlab
