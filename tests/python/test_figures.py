"""figure: the view computed headless, its SVG and PNG read back, its data and files as `attnlab figure` writes them."""

import csv
import io
import os
import struct
import xml.etree.ElementTree as ElementTree

import pytest

import attnlab
from conftest import cli, cli_error


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def pattern_figure():
    return attnlab.figure("pattern", variant="longformer", n=64, window=8, causal=True)


def test_svg_is_a_drawing_of_the_figure(pattern_figure):
    svg = pattern_figure._repr_svg_()
    assert svg.startswith("<svg")  # no XML declaration inside a notebook's HTML
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg")
    assert "longformer" in svg and "window=8" in svg  # the caption names the run
    assert len(root.findall(".//{http://www.w3.org/2000/svg}image")) + len(list(root.iter())) > 10


def test_png_is_shown_at_the_figure_size(pattern_figure):
    data, size = pattern_figure._repr_png_()
    assert size == {"width": 900, "height": 600}
    assert png_size(data) == (1800, 1200)  # 192 dpi unless dpi= says otherwise
    small = attnlab.figure("pattern", variant="full", n=16, width=400, height=300, dpi=96)
    assert png_size(small._repr_png_()[0]) == (400, 300)


def test_data_is_the_cli_csv(tmp_path, pattern_figure):
    out = tmp_path / "m.csv"
    cli("figure", "pattern", "--variant", "longformer", "--n", "64", "--set", "window=8", "--causal", "-o", out)
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    data = pattern_figure.data
    assert len(data) == len(rows) > 0
    assert [list(r) for r in data] == [list(r) for r in rows]
    assert all(str(v) == w or float(v) == float(w) for mine, theirs in zip(data, rows) for v, w in zip(mine.values(), theirs.values()))
    assert any(isinstance(v, (int, float)) for v in data[0].values())


@pytest.mark.parametrize("extension", ["png", "svg", "pdf", "csv", "tex"])
def test_save_writes_each_format(tmp_path, pattern_figure, extension):
    path = tmp_path / f"figure.{extension}"
    pattern_figure.save(path)
    data = path.read_bytes()
    heads = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF", "csv": data[:1], "tex": data[:1]}
    assert data.startswith(heads[extension]) and len(data) > 100
    if extension == "svg":
        assert data.decode().endswith(pattern_figure._repr_svg_())


def test_save_refuses_what_the_cli_refuses_and_keeps_the_old_file(tmp_path, pattern_figure):
    kept = tmp_path / "figure.svg"
    kept.write_text("old")
    with pytest.raises(ValueError):
        pattern_figure.save(tmp_path / "figure.bmp")
    fifo = tmp_path / "pipe.svg"
    os.mkfifo(fifo)
    with pytest.raises(ValueError) as raised:
        pattern_figure.save(fifo)
    assert str(raised.value) == cli_error("figure", "pattern", "-o", fifo)
    link = tmp_path / "null.png"
    link.symlink_to("/dev/null")
    with pytest.raises(ValueError):
        pattern_figure.save(link)
    with pytest.raises(ValueError):
        pattern_figure.save(tmp_path / "missing" / "figure.svg")
    assert kept.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figure.svg", "null.png", "pipe.svg"]


def test_flops_figure_of_a_compare():
    figure = attnlab.figure("flops", compare=["full", "longformer"], n=512, heads=4)
    assert "longformer" in figure._repr_svg_()
    assert {row["variant"] for row in figure.data if "variant" in row} >= {"full", "longformer"}


@pytest.mark.parametrize("keywords,options", [
    (dict(variant="full", n=0), ["--variant", "full", "--n", "0"]),
    (dict(variant="full", lang="fr"), ["--variant", "full", "--lang", "fr"]),
    (dict(variant="longformer", window=-3), ["--variant", "longformer", "--set", "window=-3"]),
])
def test_bad_settings_are_the_cli_message(tmp_path, keywords, options):
    with pytest.raises(ValueError) as raised:
        attnlab.figure("pattern", **keywords)
    assert str(raised.value) == cli_error("figure", "pattern", *options, "-o", tmp_path / "f.png")


def test_unknown_view_is_refused():
    with pytest.raises(ValueError, match="unknown view 'nope'"):
        attnlab.figure("nope")


def test_figures_belong_to_the_main_thread(pattern_figure, tmp_path):
    import threading
    raised = {}

    def in_a_thread(call):
        def work():
            try:
                call()
            except ValueError as error:
                raised[call] = str(error)
        thread = threading.Thread(target=work)
        thread.start()
        thread.join(120)
        assert not thread.is_alive(), "a figure call from another thread did not return"

    calls = [lambda: attnlab.figure("pattern", variant="full", n=16), pattern_figure._repr_png_,
             lambda: pattern_figure.save(tmp_path / "t.svg"),
             lambda: attnlab.figure("reach", variant="strided", n=64, animate="layers=1:2")]
    for call in calls:
        in_a_thread(call)
        assert "made and drawn in Python's main thread" in raised[call]
    assert not (tmp_path / "t.svg").exists()
    assert png_size(attnlab.figure("pattern", variant="full", n=16, dpi=96)._repr_png_()[0]) == (900, 600)
