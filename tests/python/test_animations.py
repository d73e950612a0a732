"""figure(..., animate=...): the Animation, its frames written as `attnlab figure --animate` writes them,
played inline as a GIF, and its bad input as the command line's."""

import base64
import os
import re

import pytest

import attnlab
from conftest import cli, cli_error


def gif_frames(data):
    """(width, height, frames) of a GIF, walking its blocks as the format defines them."""
    assert data[:6] in (b"GIF87a", b"GIF89a")
    width, height = int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    position = 13 + (3 << ((data[10] & 7) + 1) if data[10] & 0x80 else 0)
    frames = 0

    def skip_sub_blocks(at):
        while data[at]:
            at += data[at] + 1
        return at + 1

    while data[position] != 0x3B:
        if data[position] == 0x21:  # extension: label, then sub-blocks
            position = skip_sub_blocks(position + 2)
        elif data[position] == 0x2C:  # image: descriptor, local colours, LZW code size, sub-blocks
            packed = data[position + 9]
            position += 10 + (3 << ((packed & 7) + 1) if packed & 0x80 else 0)
            position = skip_sub_blocks(position + 1)
            frames += 1
        else:
            raise AssertionError(f"not a GIF block at byte {position}: {data[position]:#x}")
    return width, height, frames


SWEEP = dict(variant="strided", n=64, animate="layers=1:4")
CLI_SWEEP = ["reach", "--variant", "strided", "--n", "64", "--animate", "layers=1:4"]


@pytest.fixture(scope="module")
def reach_animation():
    return attnlab.figure("reach", **SWEEP)


def test_the_sweep_is_checked_and_named_when_made(reach_animation):
    assert reach_animation.values == [1, 2, 3, 4] and reach_animation.frames == 4
    assert repr(reach_animation) == "<attnlab.Animation reach: layers=1:4, 4 frames>"
    scaled = attnlab.figure("accuracy", variant="performer", n=64, animate="input_scale=0.5:2:*2")
    assert scaled.values == [0.5, 1.0, 2.0] and all(isinstance(v, float) for v in scaled.values)


def test_save_writes_the_cli_animation(tmp_path, reach_animation):
    mine, theirs = tmp_path / "mine.gif", tmp_path / "theirs.gif"
    reach_animation.save(mine)
    cli("figure", *CLI_SWEEP, "-o", theirs)
    assert gif_frames(mine.read_bytes()) == gif_frames(theirs.read_bytes()) == (900, 600, 4)
    assert mine.read_bytes() == theirs.read_bytes()


def test_save_writes_mp4_and_beamer_frames(tmp_path, reach_animation):
    reach_animation.save(tmp_path / "layers.mp4")
    assert (tmp_path / "layers.mp4").read_bytes()[4:8] == b"ftyp"
    reach_animation.save(tmp_path / "layers.tex")
    snippet = (tmp_path / "layers.tex").read_text()
    match = re.search(r"\\animategraphics\[[^]]*\]\{[^}]*\}\{([^}]*)\}\{(\d+)\}\{(\d+)\}", snippet)
    assert match, snippet
    pdfs = sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".pdf")
    assert len(pdfs) == int(match.group(3)) - int(match.group(2)) + 1 == 4
    assert all((tmp_path / p).read_bytes().startswith(b"%PDF") for p in pdfs)


def test_html_plays_the_gif_inline(reach_animation):
    html = reach_animation._repr_html_()
    source = re.fullmatch(r'<img alt="reach: layers=1:4" src="data:image/gif;base64,([A-Za-z0-9+/=]+)"/>', html)
    assert source, html[:200]
    assert gif_frames(base64.b64decode(source.group(1))) == (900, 600, 4)


def test_frames_differ_and_settings_reach_them(tmp_path):
    small = attnlab.figure("pattern", variant="longformer", n=64, animate="window=2:8:2", width=400, height=300)
    small.save(tmp_path / "w.gif")
    assert gif_frames((tmp_path / "w.gif").read_bytes()) == (400, 300, 4)


@pytest.mark.parametrize("keywords,options", [
    (dict(animate="layers=4:1"), ["--animate", "layers=4:1"]),
    (dict(animate="nope=1:3"), ["--animate", "nope=1:3"]),
    (dict(animate="layers=1:4", fps=0), ["--animate", "layers=1:4", "--fps", "0"]),
    (dict(animate="layers=1:700"), ["--animate", "layers=1:700"]),
])
def test_bad_sweeps_are_the_cli_message(tmp_path, keywords, options):
    with pytest.raises(ValueError) as raised:
        attnlab.figure("reach", variant="strided", n=64, **keywords)
    assert str(raised.value) == cli_error("figure", "reach", "--variant", "strided", "--n", "64", *options,
                                          "-o", tmp_path / "a.gif")


def test_save_refuses_what_the_cli_refuses_and_leaves_no_file(tmp_path, reach_animation):
    kept = tmp_path / "kept.gif"
    kept.write_bytes(b"old")
    with pytest.raises(ValueError, match="animation"):
        reach_animation.save(tmp_path / "frames.png")
    fifo = tmp_path / "pipe.gif"
    os.mkfifo(fifo)
    with pytest.raises(ValueError) as raised:
        reach_animation.save(fifo)
    assert str(raised.value) == cli_error("figure", *CLI_SWEEP, "-o", fifo)
    assert kept.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.gif", "pipe.gif"]
