"""run and bench against the command line; arrays read in place; the GIL released while kernels run."""

import json
import subprocess
import sys
import threading
import tracemalloc

import numpy as np
import pytest

import attnlab
from conftest import cli, cli_error


def cli_run(tmp_path, variant, q, k, v, *options, weights=False):
    paths = {}
    for name, array in (("q", q), ("k", k), ("v", v)):
        if array is not None:
            paths[name] = tmp_path / f"{name}.npy"
            np.save(paths[name], array)
    args = ["run", "--variant", variant, "--q", paths["q"], "--v", paths["v"], "--out", tmp_path / "out.npy", *options]
    if "k" in paths:
        args += ["--k", paths["k"]]
    if weights:
        args += ["--weights", tmp_path / "w.npy"]
    cli(*args)
    out = np.load(tmp_path / "out.npy")
    return (out, np.load(tmp_path / "w.npy")) if weights else out


RUN_CASES = [
    ("full", (2, 48, 16), (2, 48, 16), dict(causal=True), ["--causal"]),
    ("longformer", (3, 64, 8), (3, 64, 12), dict(window=5), ["--set", "window=5"]),
    ("performer", (1, 40, 16), (1, 40, 16), dict(seed=3), ["--set", "seed=3"]),
    ("full", (4, 32, 16), (2, 32, 16), dict(), []),  # grouped key/value heads
    ("bigbird", (32, 16), (32, 16), dict(), []),  # 2-D inputs
]


@pytest.mark.parametrize("variant,q_shape,v_shape,keywords,options", RUN_CASES)
def test_run_is_the_cli_npy(tmp_path, rng, variant, q_shape, v_shape, keywords, options):
    q = rng.standard_normal(q_shape).astype(np.float32)
    k = rng.standard_normal(v_shape[:-1] + q_shape[-1:]).astype(np.float32)
    v = rng.standard_normal(v_shape).astype(np.float32)
    expected_out, expected_w = cli_run(tmp_path, variant, q, k, v, "--threads", "1", *options, weights=True)
    out, w = attnlab.run(variant, q, k, v, threads=1, weights=True, **keywords)
    assert out.dtype == np.float32 and out.shape == expected_out.shape and w.shape == expected_w.shape
    np.testing.assert_allclose(out, expected_out, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(w, expected_w, rtol=1e-6, atol=1e-7)
    # out = W V, whatever the kernel.
    np.testing.assert_allclose(out, np.matmul(w, v if w.ndim == 2 else np.repeat(v, q_shape[0] // v_shape[0], axis=0)),
                               rtol=1e-4, atol=1e-5)


def test_queries_and_shared_keys(tmp_path, rng):
    q = rng.standard_normal((2, 8, 16)).astype(np.float32)
    k = rng.standard_normal((2, 40, 16)).astype(np.float32)
    v = rng.standard_normal((2, 40, 16)).astype(np.float32)
    expected = cli_run(tmp_path, "full", q, k, v, "--queries", "8", "--causal")
    np.testing.assert_allclose(attnlab.run("full", q, k, v, queries=8, causal=True), expected, rtol=1e-6, atol=1e-7)
    q_all = rng.standard_normal((1, 64, 16)).astype(np.float32)
    v_all = rng.standard_normal((1, 64, 16)).astype(np.float32)
    expected = cli_run(tmp_path, "lsh", q_all, None, v_all, "--set", "shared_qk=true")
    np.testing.assert_allclose(attnlab.run("lsh", q_all, None, v_all, shared_qk=True), expected, rtol=1e-6, atol=1e-7)


def test_other_layouts_are_converted_once(rng):
    q = rng.standard_normal((2, 32, 16))  # float64
    k = np.asfortranarray(rng.standard_normal((2, 32, 16)).astype(np.float32))
    v = rng.standard_normal((2, 32, 32)).astype(np.float32)[:, :, ::2]  # strided
    exact = attnlab.run("full", q.astype(np.float32), np.ascontiguousarray(k), np.ascontiguousarray(v))
    np.testing.assert_array_equal(attnlab.run("full", q, k, v), exact)
    np.testing.assert_array_equal(attnlab.run("full", q.tolist(), k, v), exact)
    # An unaligned float32 buffer (4 bytes past an allocation) is still read in place, and correctly.
    raw = np.empty(q.size + 1, dtype=np.float32)
    unaligned = raw[1:].reshape(q.shape)
    unaligned[...] = q
    np.testing.assert_array_equal(attnlab.run("full", unaligned, k, v), exact)


def test_float64_input_is_copied_once_and_float32_not_at_all(rng):
    shape = (8, 256, 64)
    q32 = rng.standard_normal(shape).astype(np.float32)
    q64 = q32.astype(np.float64)
    tracemalloc.start()
    try:
        attnlab.run("chunk", q32, q32, q32, chunk=16)
        _, peak32 = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        attnlab.run("chunk", q64, q64, q64, chunk=16)
        _, peak64 = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # NumPy's allocations are traced: the output array is the core's, so only conversions show.
    assert peak32 < q32.nbytes // 8
    assert 3 * q32.nbytes <= peak64 < 4 * q32.nbytes


PEAK_SCRIPT = """
import resource, sys, numpy as np, attnlab
h, n, d = 512, 512, 64
q = np.ones((h, n, d), dtype=np.float32); k = q.copy(); v = q.copy()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
out = attnlab.run("chunk", q, k, v, chunk=16, threads=2)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(before, after, q.nbytes, float(out[0, 0, 0]))
"""


def test_run_reads_a_large_input_in_place():
    done = subprocess.run([sys.executable, "-c", PEAK_SCRIPT], capture_output=True, text=True, check=True)
    before, after, nbytes, first = done.stdout.split()
    grown, nbytes = int(after) - int(before), int(nbytes)
    # The output (one input's size) and the kernel's workspace; a copy of Q, K and V would add 3x.
    assert grown < 1.6 * nbytes, (grown, nbytes)
    assert float(first) == 1.0


def test_gil_is_released_while_kernels_run(rng):
    q = rng.standard_normal((4, 1024, 64)).astype(np.float32)
    progress, go = [], threading.Event()

    def helper():
        go.wait()
        progress.append("ran")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)  # the main thread gives the GIL up only where it blocks or releases it
    try:
        thread = threading.Thread(target=helper)
        thread.start()
        go.set()
        seen_during_run = []
        # A busy machine may not run the helper during one call; a call that kept the GIL never lets it run.
        for _ in range(200):
            attnlab.run("full", q, q, q, threads=1)
            seen_during_run = list(progress)
            if seen_during_run:
                break
    finally:
        sys.setswitchinterval(interval)
    thread.join()
    assert seen_during_run == ["ran"]


BAD_ARRAYS = [  # (q, k, v) of shapes the command line refuses, and extra options
    ((2, 16, 8), (2, 8, 8), (2, 16, 8), []),
    ((2, 16, 8), (2, 16, 8), (2, 9, 8), []),
    ((16, 8), (2, 16, 8), (2, 16, 8), []),
    ((4, 16, 8), (3, 16, 8), (3, 16, 8), []),
    ((2, 16, 8), (2, 16, 8), (2, 16, 8), ["threads", "0"]),
    ((2, 16, 8), (2, 16, 8), (2, 16, 8), ["queries", "4"]),
]


@pytest.mark.parametrize("shapes_and_options", BAD_ARRAYS)
def test_bad_arrays_are_the_cli_message(tmp_path, shapes_and_options):
    *shapes, options = shapes_and_options
    arrays = [np.ones(shape, dtype=np.float32) for shape in shapes]
    args = ["run", "--variant", "full", "--out", tmp_path / "o.npy"]
    for name, array in zip("qkv", arrays):
        np.save(tmp_path / f"{name}.npy", array)
        args += [f"--{name}", tmp_path / f"{name}.npy"]
    expected = cli_error(*args, *(["--" + options[0], options[1]] if options else []))
    for name in "qkv":  # the command line names the file, the module the argument
        expected = expected.replace(str(tmp_path / f"{name}.npy"), name)
    with pytest.raises(ValueError) as raised:
        attnlab.run("full", *arrays, **({options[0]: int(options[1])} if options else {}))
    assert str(raised.value) == expected


def test_missing_keys_are_the_cli_message(tmp_path):
    q = np.ones((2, 16, 8), dtype=np.float32)
    np.save(tmp_path / "q.npy", q)
    expected = cli_error("run", "--variant", "full", "--q", tmp_path / "q.npy", "--v", tmp_path / "q.npy", "--out", tmp_path / "o.npy")
    with pytest.raises(ValueError) as raised:
        attnlab.run("full", q, None, q)
    assert str(raised.value) == expected == "--k is required for variant 'full'"


def test_non_numbers_are_refused():
    with pytest.raises(ValueError, match="^q: expected an array of numbers"):
        attnlab.run("full", ["a", "b"], np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match="^k: contains NaN at flat index 1$"):
        attnlab.run("full", np.ones((2, 2)), np.array([[1, np.nan], [0, 0]]), np.ones((2, 2)))


def test_bench_records_are_the_cli_records():
    records = attnlab.bench("longformer", [64, 128], d=16, heads=2, budget=0.01, threads=1, window=4)
    expected = json.loads(cli("bench", "--variant", "longformer", "--n", "64,128", "--d", "16", "--heads", "2",
                              "--budget", "0.01", "--threads", "1", "--set", "window=4", "--json")[1])
    assert records.keys() == expected.keys()
    got, want = records["results"], expected["results"]
    assert [(r["variant"], r["n"], r["d"], r["heads"]) for r in got] == [(r["variant"], r["n"], r["d"], r["heads"]) for r in want]
    timed = {key for key in want[0] if key.endswith("_s") or key in ("repeats", "gflops", "cpu_share", "peak_extra_bytes")}
    for mine, theirs in zip(got, want):
        assert {k: v for k, v in mine.items() if k not in timed} == {k: v for k, v in theirs.items() if k not in timed}
        assert mine["median_s"] > 0 and mine["min_s"] <= mine["median_s"] <= mine["max_s"]
    with pytest.raises(ValueError) as raised:
        attnlab.bench("full", [64], budget=-1)
    assert str(raised.value) == cli_error("bench", "--variant", "full", "--n", "64", "--budget", "-1")


def test_commands_from_several_threads_each_get_their_own_output():
    records = []

    def timed():
        records.append(attnlab.bench("full", [64], d=8, heads=1, budget=0.01, threads=1))

    threads = [threading.Thread(target=timed) for _ in range(3)]
    for thread in threads:
        thread.start()
    costs = [attnlab.cost("full", 256, 64, 4) for _ in range(20)]
    for thread in threads:
        thread.join()
    assert all(cost == costs[0] for cost in costs)
    assert len(records) == 3 and all([r["n"] for r in rec["results"]] == [64] for rec in records)
