"""variants, describe, pattern, ranges and cost against the command line on the same settings."""

import numpy as np
import pytest

import attnlab
from conftest import cli, cli_error, cli_json


def test_variants_are_the_listed_ids():
    assert attnlab.variants() == [v["id"] for v in cli_json("variants")["variants"]]


def test_describe_is_the_listing_entry():
    listing = {v["id"]: v for v in cli_json("variants")["variants"]}
    for variant in ("full", "longformer", "custom", "lsh"):
        assert attnlab.describe(variant) == listing[variant]
    assert [p["key"] for p in attnlab.describe("longformer")["params"]] == [p["key"] for p in listing["longformer"]["params"]]


def test_unknown_variant_is_the_cli_message():
    with pytest.raises(ValueError) as raised:
        attnlab.describe("nope")
    assert str(raised.value) == cli_error("pattern", "--variant", "nope", "--n", "8", "--out", "/tmp/unused.npy")


PATTERN_CASES = [
    ("full", dict(n=24, causal=True), ["--n", "24", "--causal"]),
    ("longformer", dict(n=40, window=3, globals=[0, 17]), ["--n", "40", "--set", "window=3", "--set", "globals=0,17"]),
    ("strided", dict(n=36, causal=True, stride=6), ["--n", "36", "--causal", "--set", "stride=6"]),
    ("custom", dict(grid=(6, 8), expr="neighborhood(3) | sink(2)"), ["--grid", "6,8", "--set", "expr=neighborhood(3) | sink(2)"]),
    ("custom", dict(grid=(8, 8), order="morton", expr="window(4)"), ["--grid", "8,8", "--order", "morton", "--set", "expr=window(4)"]),
    ("bigbird", dict(n=64, queries=5, causal=True), ["--n", "64", "--queries", "5", "--causal"]),
]


@pytest.mark.parametrize("variant,keywords,options", PATTERN_CASES)
def test_pattern_is_the_cli_npy(tmp_path, variant, keywords, options):
    out = tmp_path / "m.npy"
    cli("pattern", "--variant", variant, *options, "--out", out)
    expected = np.load(out)
    got = attnlab.pattern(variant, **keywords)
    assert got.dtype == np.uint8 and got.flags.c_contiguous
    np.testing.assert_array_equal(got, expected)


def test_components_are_the_cli_npy(tmp_path):
    out = tmp_path / "c.npy"
    expr = "band(2) | stride(5) | sink(1)"
    cli("pattern", "--variant", "custom", "--n", "30", "--causal", "--set", f"expr={expr}", "--components", "--out", out)
    got = attnlab.pattern("custom", 30, causal=True, expr=expr, components=True)
    np.testing.assert_array_equal(got, np.load(out))
    assert set(np.unique(got)) <= {0, 1, 2, 3, 255}


def test_data_dependent_pattern_from_arrays(tmp_path, rng):
    q = rng.standard_normal((2, 32, 16)).astype(np.float32)
    np.save(tmp_path / "q.npy", q)
    cli("pattern", "--variant", "lsh", "--n", "32", "--set", "shared_qk=true", "--q", tmp_path / "q.npy", "--head", "1",
        "--out", tmp_path / "m.npy")
    got = attnlab.pattern("lsh", 32, shared_qk=True, q=q, head=1)
    np.testing.assert_array_equal(got, np.load(tmp_path / "m.npy"))


def dense_from_ranges(offsets, ranges, n):
    dense = np.zeros((len(offsets) - 1, n), dtype=np.uint8)
    for i in range(len(offsets) - 1):
        for begin, end in ranges[offsets[i]:offsets[i + 1]]:
            dense[i, begin:end] = 1
    return dense


@pytest.mark.parametrize("variant,keywords,options", PATTERN_CASES)
def test_ranges_cover_the_pattern(variant, keywords, options):
    offsets, ranges = attnlab.ranges(variant, **keywords)
    dense = attnlab.pattern(variant, **keywords)
    assert offsets.dtype == np.int64 and ranges.shape[1] == 2
    assert offsets[0] == 0 and np.all(np.diff(offsets) >= 1)  # every row allows a column
    assert np.all(ranges[:, 0] < ranges[:, 1])
    np.testing.assert_array_equal(dense_from_ranges(offsets, ranges, dense.shape[1]), dense)


def test_ranges_at_a_length_no_dense_array_could_hold():
    n, window = 1 << 20, 4
    offsets, ranges = attnlab.ranges("longformer", n, window=window)
    assert len(offsets) == n + 1 and len(ranges) == n  # one band per row: floor(w/2) keys on each side
    i = np.arange(n)
    np.testing.assert_array_equal(ranges[:, 0], np.maximum(0, i - window // 2))
    np.testing.assert_array_equal(ranges[:, 1], np.minimum(n, i + window // 2 + 1))
    cost = attnlab.cost("longformer", n, 64, 1, window=window)
    assert cost["terms"]["scores"] == 64 * int((ranges[:, 1] - ranges[:, 0]).sum())


COST_CASES = [
    ("full", 1024, 64, 12, dict(), []),
    ("longformer", 4096, 64, 8, dict(causal=True, kv_heads=2, window=128), ["--causal", "--kv-heads", "2", "--set", "window=128"]),
    ("full", 8192, 128, 32, dict(decode=True, kv_heads=8, kv_dtype="bf16"), ["--decode", "--kv-heads", "8", "--kv-dtype", "bf16"]),
    ("custom", 256, 64, 4, dict(expr="band(8)", block_size=32), ["--set", "expr=band(8)", "--block-size", "32"]),
    ("full", 2048, 64, 12, dict(queries=16, causal=True), ["--queries", "16", "--causal"]),
]


@pytest.mark.parametrize("variant,n,d,heads,keywords,options", COST_CASES)
def test_cost_is_the_cli_json(variant, n, d, heads, keywords, options):
    expected = cli_json("cost", "--variant", variant, "--n", n, "--d", d, "--heads", heads, *options)
    assert attnlab.cost(variant, n, d, heads, **keywords) == expected


def test_cost_of_a_model():
    assert attnlab.cost(model="bert-base") == cli_json("cost", "--model", "bert-base")


@pytest.mark.parametrize("call,options", [
    (lambda: attnlab.pattern("longformer", 64, window=-1), ["pattern", "--variant", "longformer", "--n", "64", "--set", "window=-1", "--out", "/tmp/x.npy"]),
    (lambda: attnlab.pattern("full"), ["pattern", "--variant", "full", "--out", "/tmp/x.npy"]),
    (lambda: attnlab.pattern("full", 8, colour=3), ["pattern", "--variant", "full", "--n", "8", "--colour", "3", "--out", "/tmp/x.npy"]),
    (lambda: attnlab.cost("full", 64, 64, 6, kv_heads=4), ["cost", "--variant", "full", "--n", "64", "--d", "64", "--heads", "6", "--kv-heads", "4"]),
    (lambda: attnlab.cost("custom", 64, 64, 1, expr="band("), ["cost", "--variant", "custom", "--n", "64", "--d", "64", "--heads", "1", "--set", "expr=band("]),
    (lambda: attnlab.pattern("lsh", 16), ["pattern", "--variant", "lsh", "--n", "16", "--out", "/tmp/x.npy"]),
])
def test_bad_input_is_the_cli_message(call, options):
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value) == cli_error(*options)


def test_ranges_refuse_an_output_over_the_memory_budget():
    # stride(2) at n = 4096: 2048 ranges a row, 128 MiB of bounds; a band of 4096 ranges fits in 1 MiB.
    default = attnlab.limits()["memory_budget"]
    assert attnlab.limits(memory_budget="1M")["memory_budget"] == 1 << 20
    try:
        with pytest.raises(ValueError) as raised:
            attnlab.ranges("custom", 4096, expr="stride(2)")
        message = str(raised.value)
        assert message.startswith("ranges() of this pattern (about 8388608 column ranges) needs 128.03 MiB, "
                                  "over the job budget of 1.00 MiB"), message
        assert "\n" not in message
        offsets, ranges = attnlab.ranges("longformer", 4096, window=8)
        assert len(offsets) == 4097 and len(ranges) == 4096
    finally:
        assert attnlab.limits(memory_budget=None)["memory_budget"] == default
    assert len(attnlab.ranges("custom", 4096, expr="stride(2)")[1]) == 4096 * 2048


def test_limits_are_the_cli_options():
    before = attnlab.limits()
    assert set(before) == {"memory_budget", "max_macs", "max_ranges"}
    assert attnlab.limits(max_ranges=1000, max_macs=1e6)["max_ranges"] == 1000
    try:
        with pytest.raises(ValueError) as raised:
            attnlab.cost("custom", 4096, 64, 1, expr="stride(2) | prefix(0)")
        assert str(raised.value) == cli_error("cost", "--max-ranges", "1000", "--variant", "custom", "--n", "4096",
                                              "--d", "64", "--heads", "1", "--set", "expr=stride(2) | prefix(0)", "--json")
    finally:
        assert attnlab.limits(max_ranges=None, max_macs=None) == before
    for keywords, option in [(dict(memory_budget="lots"), ["--memory-budget", "lots"]),
                             (dict(max_ranges=0), ["--max-ranges", "0"]),
                             (dict(max_macs=-1), ["--max-macs", "-1"])]:
        with pytest.raises(ValueError) as raised:
            attnlab.limits(**keywords)
        assert str(raised.value) == cli_error("variants", *option)
    with pytest.raises(ValueError, match="not 'budget'"):
        attnlab.limits(budget=1)
    assert attnlab.limits() == before
