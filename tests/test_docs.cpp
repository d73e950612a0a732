// docs/ is the contract users read, so it must say what the program does: the parameter table of
// docs/variants.md against the registry (the data `attnlab variants --json` prints), a section per
// variant, the worked crossover numbers of docs/cost_model.md against the cost model, every relative
// link of the documentation pointing at a file that exists, no reference outside the repository, and
// core/'s includes against the layer order of docs/architecture.md.
#include "test_cli_harness.h"

#include "core/analysis/crossovers.h"
#include "core/cost/cost_model.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace attnlab {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = ATTNLAB_SOURCE_DIR;

std::string readText(const fs::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::stringstream stream(text);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    return lines;
}

std::string trimmed(const std::string& text) {
    const auto begin = text.find_first_not_of(" \t`");
    const auto end = text.find_last_not_of(" \t`");
    return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

// Cells of a Markdown table row; "\|" inside a cell is a literal '|'.
std::vector<std::string> tableCells(const std::string& row) {
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t c = 0; c < row.size(); ++c) {
        if (row[c] == '\\' && c + 1 < row.size() && row[c + 1] == '|') {
            cell += '|';
            ++c;
        } else if (row[c] == '|') {
            cells.push_back(trimmed(cell));
            cell.clear();
        } else {
            cell += row[c];
        }
    }
    if (!cells.empty()) cells.erase(cells.begin()); // the text before the first '|'
    return cells;
}

// The rows of the table that follows the line containing `startMarker`, up to `endMarker`.
std::vector<std::vector<std::string>> markedTable(const std::string& text, const std::string& startMarker,
                                                  const std::string& endMarker) {
    std::vector<std::vector<std::string>> rows;
    bool inside = false;
    for (const std::string& line : linesOf(text)) {
        if (line.find(startMarker) != std::string::npos) {
            inside = true;
            continue;
        }
        if (line.find(endMarker) != std::string::npos) break;
        if (!inside || line.rfind("|", 0) != 0 || line.rfind("|---", 0) == 0) continue;
        rows.push_back(tableCells(line));
    }
    if (!rows.empty()) rows.erase(rows.begin()); // the header
    return rows;
}

TEST(VariantsPage, ParameterTableIsTheRegistrys) {
    const auto rows = markedTable(readText(kSource / "docs/variants.md"), "<!-- parameter table", "<!-- end of parameter table");
    std::vector<std::vector<std::string>> expected;
    for (const auto& variant : allVariants())
        for (const auto& spec : variant.params)
            expected.push_back({variant.id, spec.key, paramTypeName(spec.type), spec.defaultText, spec.rangeText});
    for (std::size_t r = 0; r < std::max(rows.size(), expected.size()); ++r) {
        ASSERT_LT(r, rows.size()) << "docs/variants.md lacks the row | " << expected[r][0] << " | " << expected[r][1]
                                  << " | " << expected[r][2] << " | " << expected[r][3] << " | " << expected[r][4] << " |";
        ASSERT_LT(r, expected.size()) << "docs/variants.md documents a parameter the program does not have: "
                                      << rows[r][0] << " " << rows[r][1];
        ASSERT_EQ(rows[r].size(), 5u) << "row " << r + 1 << " of the parameter table";
        EXPECT_EQ(rows[r], expected[r]) << "row " << r + 1 << " of the parameter table (variant, key, type, default, range)";
    }
}

TEST(VariantsPage, EveryVariantHasItsSection) {
    const std::string text = readText(kSource / "docs/variants.md");
    for (const auto& variant : allVariants())
        EXPECT_NE(text.find("\n### `" + variant.id + "`"), std::string::npos)
            << "docs/variants.md has no section \"### `" << variant.id << "` — ...\"";
}

TEST(CostModelPage, WorkedCrossoversAreTheCostModels) {
    const auto rows = markedTable(readText(kSource / "docs/cost_model.md"), "<!-- crossover table", "<!-- end of crossover table");
    ASSERT_EQ(rows.size(), 3u);
    const std::vector<std::string> names = {"self-attention > FFN", "attention core > rest of the layer",
                                            "linear (head 4d) cheaper than full"};
    for (const bool causal : {false, true}) {
        ProblemShape shape;
        shape.heads = 12;
        shape.d = shape.dv = 64;
        shape.causal = causal;
        const LayerCrossovers found = layerCrossovers(requireVariant("full"), shape, {});
        const std::vector<Crossover> column = {found.attentionExceedsFfn, found.coreDominates, found.linearBeatsFull};
        for (std::size_t r = 0; r < rows.size(); ++r) {
            ASSERT_EQ(rows[r][0], names[r]);
            ASSERT_TRUE(column[r].threshold) << names[r];
            EXPECT_EQ(rows[r][causal ? 2 : 1], std::to_string(*column[r].threshold)) << names[r];
        }
    }
}

// "    $ attnlab ARGS" lines of docs/command_line.md, each followed by the one line it prints on stderr.
class CommandLinePage : public clitest::CliTest {};

TEST_F(CommandLinePage, ErrorExamplesPrintTheirLineAndExitWithTwo) {
    const std::vector<std::string> lines = linesOf(readText(kSource / "docs/command_line.md"));
    const std::string prompt = "    $ attnlab ";
    int examples = 0;
    for (std::size_t l = 0; l + 1 < lines.size(); ++l) {
        if (lines[l].rfind(prompt, 0) != 0) continue;
        std::vector<std::string> args;
        std::stringstream words(lines[l].substr(prompt.size()));
        for (std::string word; words >> word;) args.push_back(word);
#ifndef ATTNLAB_TESTS_WITH_GUI
        if (args.front() == "figure") continue; // a build without the GUI has no figure command
#endif
        const clitest::Outcome outcome = run(args);
        EXPECT_EQ(outcome.exitCode, 2) << lines[l];
        EXPECT_EQ(outcome.err, trimmed(lines[l + 1]) + "\n") << lines[l];
        EXPECT_EQ(outcome.out, "") << lines[l];
        ++examples;
    }
    EXPECT_GE(examples, 3);
}

#ifdef ATTNLAB_TESTS_WITH_GUI
// The words of a command line as a shell splits them: whitespace outside double quotes.
std::vector<std::string> shellWords(const std::string& line) {
    std::vector<std::string> words;
    std::string word;
    bool quoted = false, inWord = false;
    for (const char c : line) {
        if (c == '"') {
            quoted = !quoted;
            inWord = true;
        } else if (!quoted && (c == ' ' || c == '\t')) {
            if (inWord) words.push_back(word);
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord) words.push_back(word);
    return words;
}

// A documented example between `<!-- NAME -->` and `<!-- end of NAME -->`: its indented `attnlab` command
// and the indented lines of the file it writes.
struct FileExample {
    std::vector<std::string> args;
    std::string output;
    std::vector<std::string> lines;
};

FileExample fileExample(const std::string& text, const std::string& name) {
    FileExample example;
    bool inside = false;
    for (const std::string& line : linesOf(text)) {
        if (line == "<!-- " + name + " -->") inside = true;
        else if (line == "<!-- end of " + name + " -->") break;
        else if (inside && line.rfind("    attnlab ", 0) == 0) example.args = shellWords(line.substr(12));
        else if (inside && line.rfind("    ", 0) == 0) example.lines.push_back(line.substr(4));
    }
    const auto output = std::find(example.args.begin(), example.args.end(), "-o");
    if (output != example.args.end() && output + 1 != example.args.end()) example.output = *(output + 1);
    return example;
}

std::vector<std::string> csvCells(const std::string& line) {
    std::vector<std::string> cells(1);
    for (const char c : line) {
        if (c == ',') cells.emplace_back();
        else cells.back() += c;
    }
    return cells;
}

TEST_F(CommandLinePage, PatternCsvExamplesAreWhatTheCommandsWrite) {
    for (const std::string name : {"pattern csv example", "pattern grid csv example"}) {
        const FileExample example = fileExample(readText(kSource / "docs/command_line.md"), name);
        ASSERT_FALSE(example.output.empty()) << "no command with -o FILE in the " << name;
        succeed(example.args);
        EXPECT_EQ(linesOf(clitest::readBytes(file(example.output))), example.lines) << name;
    }
}

// The weights depend on the inputs' rounding: the header and the masked (empty) cells must match, the
// weights to 1e-6.
TEST_F(CommandLinePage, PatternWeightsCsvExampleIsWhatTheCommandWrites) {
    const FileExample example = fileExample(readText(kSource / "docs/command_line.md"), "pattern weights csv example");
    ASSERT_FALSE(example.output.empty()) << "no command with -o FILE in the pattern weights csv example";
    ASSERT_GE(example.lines.size(), 2u);
    succeed(example.args);
    const std::vector<std::string> written = linesOf(clitest::readBytes(file(example.output)));
    ASSERT_GE(written.size(), example.lines.size());
    EXPECT_EQ(written.front(), example.lines.front());
    for (std::size_t r = 1; r < example.lines.size(); ++r) {
        const std::vector<std::string> documented = csvCells(example.lines[r]), actual = csvCells(written[r]);
        ASSERT_EQ(actual.size(), documented.size()) << written[r];
        for (std::size_t c = 0; c < documented.size(); ++c) {
            if (c < 4 || documented[c].empty() || actual[c].empty()) {
                EXPECT_EQ(actual[c], documented[c]) << "row " << r << " column " << c;
                continue;
            }
            EXPECT_NEAR(std::stod(actual[c]), std::stod(documented[c]), 1e-6) << "row " << r << " column " << c;
        }
    }
}

TEST_F(CommandLinePage, BeamerSnippetExampleIsWhatTheCommandWrites) {
    const FileExample example =
        fileExample(readText(kSource / "docs/command_line.md"), "beamer snippet example");
    ASSERT_FALSE(example.output.empty()) << "no command with -o FILE in the beamer snippet example";
    succeed(example.args);
    EXPECT_EQ(linesOf(clitest::readBytes(file(example.output))), example.lines);
    for (int k = 0; k < 8; ++k)
        EXPECT_EQ(clitest::readBytes(file("reach-" + std::to_string(k) + ".pdf")).rfind("%PDF-", 0), 0u) << k;
}
#endif

std::vector<fs::path> documentationFiles() {
    std::vector<fs::path> files = {kSource / "README.md"};
    for (const auto& entry : fs::directory_iterator(kSource / "docs"))
        if (entry.path().extension() == ".md") files.push_back(entry.path());
    return files;
}

TEST(Documentation, RelativeLinksPointAtFilesThatExist) {
    const std::regex link(R"(\]\(([^)#:\s]+)(#[^)]*)?\))");
    int links = 0;
    for (const fs::path& file : documentationFiles()) {
        const std::string text = readText(file);
        for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
            ++links;
            EXPECT_TRUE(fs::exists(file.parent_path() / (*it)[1].str())) << file.filename() << " links to " << (*it)[1];
        }
    }
    EXPECT_GE(links, 5);
}

TEST(Documentation, TheIndexLinksEveryPage) {
    const std::string index = readText(kSource / "docs/README.md");
    for (const auto& entry : fs::directory_iterator(kSource / "docs")) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".md" || name == "README.md") continue;
        EXPECT_NE(index.find("](" + name + ")"), std::string::npos) << "docs/README.md does not link " << name;
    }
}

TEST(Documentation, StandsAloneWithoutOutsideDocuments) {
    for (const fs::path& file : documentationFiles()) {
        const std::string text = readText(file);
        for (const std::string outside : {"../shared", "/work/shared", "seed document", "spec/variants.md"})
            EXPECT_EQ(text.find(outside), std::string::npos) << file.filename() << " mentions " << outside;
    }
}

// The layer of a core/ file from docs/architecture.md's table: a folder ("core/io/"), a file
// ("core/tensor.h") or a file with any extension ("core/registry.*"). 0 when it is in no layer.
using LayerTable = std::vector<std::pair<std::string, int>>;

LayerTable layerTable() {
    LayerTable table;
    for (const auto& row : markedTable(readText(kSource / "docs/architecture.md"), "<!-- layer table", "<!-- end of layer table")) {
        std::stringstream entries(row.at(1));
        for (std::string entry; std::getline(entries, entry, ',');) table.emplace_back(trimmed(entry), std::stoi(row.at(0)));
    }
    return table;
}

bool inEntry(const std::string& path, const std::string& entry) {
    if (entry.ends_with("/")) return path.starts_with(entry);
    if (!entry.ends_with(".*")) return path == entry;
    const std::string stem = entry.substr(0, entry.size() - 1); // "core/registry."
    return path.starts_with(stem) && path.find('/', stem.size()) == std::string::npos;
}

int layerOf(const LayerTable& table, const std::string& path) {
    for (const auto& [entry, layer] : table)
        if (inEntry(path, entry)) return layer;
    return 0;
}

std::vector<std::string> sourcesUnder(const std::string& folder) {
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(kSource / folder))
        if (entry.path().extension() == ".h" || entry.path().extension() == ".cpp")
            files.push_back(fs::relative(entry.path(), kSource).generic_string());
    std::sort(files.begin(), files.end());
    return files;
}

TEST(Architecture, NoIncludeOfCoreRunsAgainstTheLayerOrder) {
    const LayerTable table = layerTable();
    ASSERT_GE(table.size(), 10u) << "docs/architecture.md lost its layer table";
    const std::regex include(R"(#include\s+"(core/[^"]+)\")");
    int includes = 0;
    for (const std::string& file : sourcesUnder("core")) {
        const int layer = layerOf(table, file);
        EXPECT_GT(layer, 0) << file << " is in no layer of docs/architecture.md";
        const std::string text = readText(kSource / file);
        for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it) {
            ++includes;
            const std::string target = (*it)[1];
            EXPECT_LE(layerOf(table, target), layer)
                << file << " (layer " << layer << ") includes " << target << " (layer " << layerOf(table, target)
                << "), further down docs/architecture.md's table";
        }
    }
    EXPECT_GT(includes, 100);
}

TEST(Architecture, CoreHasNoGuiAndViewsNoApp) {
    const std::regex gui(R"(#include\s+[<"](Q[A-Za-z]|imgui|views/|app/))");
    for (const std::string& file : sourcesUnder("core"))
        EXPECT_FALSE(std::regex_search(readText(kSource / file), gui)) << file << " includes Qt, ImGui, views/ or app/";
    const std::regex app(R"(#include\s+"app/)");
    for (const std::string& file : sourcesUnder("views"))
        EXPECT_FALSE(std::regex_search(readText(kSource / file), app)) << file << " includes app/";
}

} // namespace
} // namespace attnlab
