// The `attnlab` Python module: the subcommands' readers, checks and computations with keyword
// arguments for options and NumPy arrays for files (docs/python.md).

#include "app/commands.h"
#include "app/pattern_request.h"
#include "app/python/python_animation.h"
#include "app/python/python_args.h"
#include "app/python/python_arrays.h"
#include "app/python/python_figure.h"
#include "app/run_request.h"

#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/jobs/memory_budget.h"
#include "core/patterns/range_work.h"
#include "core/registry.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <set>

namespace py = pybind11;

namespace attnlab {

namespace {

// The keywords a call passes on to a subcommand's reader, with the named ones first.
py::dict withNamed(const py::kwargs& keywords,
                   std::initializer_list<std::pair<const char*, py::object>> named) {
    py::dict all;
    for (const auto& [name, value] : named)
        all[name] = value;
    for (const auto& [key, value] : keywords) {
        if (all.contains(key))
            throw py::type_error("got multiple values for argument '" + key.cast<std::string>() + "'");
        all[key] = value;
    }
    return all;
}

// The arrays q and k (keywords of a data-dependent pattern) taken out of the keywords, as Q and K.
PatternSource arraySource(py::dict& keywords, std::vector<py::object>& keep) {
    PatternSource source;
    py::object q = keywords.contains("q") ? keywords.attr("pop")("q") : py::none();
    py::object k = keywords.contains("k") ? keywords.attr("pop")("k") : py::none();
    std::optional<InputArray> queries, keys;
    if (!q.is_none()) queries = inputArray("q", q, keep);
    if (!k.is_none()) keys = inputArray("k", k, keep);
    source.queries = [queries](bool fewerQueries) -> std::optional<InputFiles> {
        if (!queries) return std::nullopt;
        return borrowInputs(*queries, nullptr, fewerQueries);
    };
    source.keysGiven = keys.has_value();
    source.keys = [keys](InputFiles& files) { borrowKeys(files, *keys); };
    return source;
}

// The job reads the arrays `keep` holds. `dense`: an n x n array is built, and counts against the job
// budget; else only the pattern's own storage does.
PatternJob patternJob(const py::object& variant, const py::object& n, const py::kwargs& keywords,
                      std::vector<py::object>& keep, bool dense) {
    py::dict all = withNamed(keywords, {{"variant", variant}, {"n", n}});
    const PatternSource source = arraySource(all, keep);
    const CliArgs cli = patternArgs(optionArgs(all, {&namedVariant(variant)}));
    PatternJob job = patternShape(cli, source);
    preparePatternInputs(cli, job, source);
    if (dense)
        requirePatternLimits(*job.variant, job.shape, job.params);
    else
        requirePatternBuildLimits(*job.variant, job.shape, job.params);
    return job;
}

py::array_t<std::uint8_t> pattern(const py::object& variant, const py::object& n,
                                  const py::kwargs& keywords) {
    std::vector<py::object> keep;
    const bool components = keywords.contains("components") && py::bool_(py::object(keywords["components"]));
    const PatternJob job = patternJob(variant, n, keywords, keep, true);
    std::vector<std::uint8_t> cells;
    {
        const py::gil_scoped_release release;
        cells = job.cells(components);
    }
    return byteArray(std::move(cells), {job.rows, job.shape.n});
}

// Bytes of ranges()'s two int64 arrays: an offset per row and one more, a begin and an end per range.
double rangesBytes(std::int64_t rows, std::int64_t count) {
    return 8.0 * static_cast<double>(rows + 1) + 16.0 * static_cast<double>(count);
}

// The arrays' size estimated from rows spread evenly over the pattern (within the job's range limit),
// refused before they are built when it passes the job's memory budget; the building is checked against
// the budget too, for patterns whose rows the sample does not represent.
void requireRangesMemory(const Pattern& built) {
    const double estimate = requireRangeWork(built);
    requireMemory(rangesBytes(built.rows(), static_cast<std::int64_t>(estimate)),
                  "ranges() of this pattern (about " + std::to_string(static_cast<std::int64_t>(estimate)) +
                      " column ranges)");
}

// Row i's allowed columns are ranges[offsets[i]:offsets[i + 1]], each [begin, end).
py::tuple ranges(const py::object& variant, const py::object& n, const py::kwargs& keywords) {
    if (keywords.contains("components"))
        throw InputError("ranges() gives the allowed set: it takes no components");
    std::vector<py::object> keep;
    const PatternJob job = patternJob(variant, n, keywords, keep, false);
    std::vector<std::int64_t> offsets{0}, bounds;
    {
        const py::gil_scoped_release release;
        const auto built = job.pattern();
        requireRangesMemory(*built);
        const double budget = jobBudgetBytes();
        std::vector<ColumnRange> row;
        offsets.reserve(static_cast<std::size_t>(built->rows()) + 1);
        for (std::int64_t i = 0; i < built->rows(); ++i) {
            row.clear();
            built->rowRanges(i, row);
            const double bytes = rangesBytes(built->rows(), static_cast<std::int64_t>(bounds.size() / 2 + row.size()));
            if (bytes > budget) requireMemory(bytes, "ranges() of this pattern's first " + std::to_string(i + 1) + " rows");
            for (const ColumnRange& range : row)
                bounds.insert(bounds.end(), {range.begin, range.end});
            offsets.push_back(static_cast<std::int64_t>(bounds.size() / 2));
        }
    }
    const auto count = static_cast<std::int64_t>(bounds.size() / 2);
    const auto rows = static_cast<std::int64_t>(offsets.size());
    return py::make_tuple(indexArray(std::move(offsets), {rows}), indexArray(std::move(bounds), {count, 2}));
}

py::object run(const py::object& variant, const py::object& q, const py::object& k, const py::object& v,
               const py::kwargs& keywords) {
    py::dict all = withNamed(keywords, {{"variant", variant}});
    const bool wantWeights = all.contains("weights") && py::bool_(all.attr("pop")("weights"));
    std::vector<py::object> keep;
    const InputArray qArray = inputArray("q", q, keep), vArray = inputArray("v", v, keep);
    std::optional<InputArray> kArray;
    if (!k.is_none()) kArray = inputArray("k", k, keep);
    const CliArgs cli = runArgs(optionArgs(all, {&namedVariant(variant)}));
    InputFiles files;
    RunResult result;
    {
        const py::gil_scoped_release release;
        files = borrowInputs(qArray, &vArray, cli.value("--queries").has_value());
        const RunPlan plan = planRun(
            cli, files,
            [&](InputFiles& loaded, const std::string& id) {
                if (!kArray) throw InputError("--k is required for variant '" + id + "'");
                borrowKeys(loaded, *kArray);
            },
            wantWeights);
        result = executeRun(cli, plan, files);
    }
    py::array_t<float> out = floatArray(std::move(result.out.values), runOutputShape(files, files.v.cols));
    if (!wantWeights) return out;
    return py::make_tuple(out,
                          floatArray(std::move(result.weights->values), runOutputShape(files, files.v.rows)));
}

py::object cost(const py::object& variant, const py::object& n, const py::object& d, const py::object& heads,
                const py::kwargs& keywords) {
    const py::dict all = withNamed(
        keywords, {{"variant", variant}, {"n", n}, {"d", d}, {"heads", heads}, {"json", py::bool_(true)}});
    std::vector<const VariantInfo*> named;
    if (!variant.is_none()) named.push_back(&namedVariant(variant));
    const std::vector<std::string> args = optionArgs(all, named);
    return parsedJson(capturedOutput([&] { costCommand(args); }));
}

py::object bench(const py::object& variant, const py::object& n, const py::kwargs& keywords) {
    const py::dict all = withNamed(keywords, {{"variant", variant}, {"n", n}, {"json", py::bool_(true)}});
    const std::vector<std::string> args = optionArgs(all, knownVariants(variant));
    std::string text;
    {
        const py::gil_scoped_release release;
        text = capturedOutput([&] { benchCommand(args); });
    }
    return parsedJson(text);
}

// The process's job limits, as the command line's --memory-budget, --max-macs and --max-ranges set them
// for one command: a keyword changes one (None puts its default back: the environment variable, else
// the built-in), and the limits in force are returned.
py::dict limits(const py::kwargs& keywords) {
    std::vector<std::string> args;
    for (const auto& [key, value] : keywords) {
        const std::string name = key.cast<std::string>();
        if (name != "memory_budget" && name != "max_macs" && name != "max_ranges")
            throw InputError("limits() takes memory_budget, max_macs and max_ranges, not '" + name + "'");
        if (!value.is_none()) {
            args.insert(args.end(), {"--" + name, py::str(value).cast<std::string>()});
            std::replace(args[args.size() - 2].begin(), args[args.size() - 2].end(), '_', '-');
        }
    }
    applyJobLimits(args); // every value checked before any is reset
    for (const auto& [key, value] : keywords) {
        if (!value.is_none()) continue;
        const std::string name = key.cast<std::string>();
        if (name == "memory_budget") setJobBudget(std::nullopt);
        else if (name == "max_macs") setJobWorkLimit(std::nullopt);
        else setJobRangeLimit(std::nullopt);
    }
    py::dict now;
    now["memory_budget"] = jobBudgetBytes();
    now["max_macs"] = jobWorkLimit();
    now["max_ranges"] = jobRangeLimit();
    return now;
}

py::list variantIds() {
    py::list ids;
    for (const VariantInfo& variant : allVariants())
        ids.append(variant.id);
    return ids;
}

py::dict describe(const py::object& id) {
    const std::string wanted = namedVariant(id).id;
    const py::object listing = parsedJson(capturedOutput([] { variantsCommand({"--json"}); }));
    const py::object entries = listing["variants"];
    for (const auto entry : entries)
        if (entry["id"].cast<std::string>() == wanted) return entry.cast<py::dict>();
    throw std::logic_error("variant '" + wanted + "' is missing from the listing");
}

} // namespace

} // namespace attnlab

PYBIND11_MODULE(attnlab, m) {
    using namespace attnlab;
    m.doc() = "AttnLab's attention variants, patterns, costs, kernels and figures (docs/python.md).";
    py::register_exception_translator([](std::exception_ptr error) {
        try {
            if (error) std::rethrow_exception(error);
        } catch (const InputError& input) {
            PyErr_SetString(PyExc_ValueError, input.what());
        }
    });
    m.def("limits", &limits,
          "The job limits every later call is held to (memory_budget in bytes or as '8G', max_macs, max_ranges, as "
          "the command line's options; None restores a default), returned as a dict.");
    m.def("variants", &variantIds, "The variant ids, as `attnlab variants` lists them.");
    m.def("describe", &describe, py::arg("variant"),
          "The variant's entry of `attnlab variants --json`: its name, family, causal support and parameters "
          "(key, type, default, range, ...).");
    m.def("pattern", &pattern, py::arg("variant"), py::arg("n") = py::none(),
          "The allowed set as uint8 [m, n] (1 where query i may attend key j), or with components=True each "
          "allowed "
          "cell's component; keywords as `attnlab pattern`'s options, the variant's parameters by name; q "
          "and k "
          "arrays for a data-dependent pattern (lsh).");
    m.def("ranges", &ranges, py::arg("variant"), py::arg("n") = py::none(),
          "Each row's allowed columns without an n x n array: (offsets, ranges), row i's half-open column "
          "ranges "
          "being ranges[offsets[i]:offsets[i + 1]]. Keywords as pattern().");
    m.def("run", &run, py::arg("variant"), py::arg("q"), py::arg("k"), py::arg("v"),
          "Runs the variant on Q, K, V ([h, n, d] or [n, d]): out, or (out, W) with weights=True, as float32 "
          "arrays. "
          "float32 C-contiguous inputs are read in place; the GIL is released while the kernels run.");
    m.def("cost", &cost, py::arg("variant") = py::none(), py::arg("n") = py::none(),
          py::arg("d") = py::none(), py::arg("heads") = py::none(),
          "The dict of `attnlab cost --json` for the same options.");
    m.def("bench", &bench, py::arg("variant") = py::none(), py::arg("n") = py::none(),
          "The records of `attnlab bench --json` for the same options (the GIL is released while it times).");
    defineFigure(m);
    defineAnimation(m);
}
