"""Shared helpers of the module's tests: the command line they are checked against."""

import json
import os
import subprocess

import numpy as np
import pytest

EXECUTABLE = os.environ.get("ATTNLAB_EXECUTABLE", "attnlab")


def cli(*args, check=True):
    """Runs `attnlab ARGS...`; returns (exit code, stdout, stderr)."""
    done = subprocess.run([EXECUTABLE, *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"attnlab {' '.join(map(str, args))} failed: {done.stderr}")
    return done.returncode, done.stdout, done.stderr


def cli_json(*args):
    return json.loads(cli(*args, "--json")[1])


def cli_error(*args):
    """The one-line message the command line prints for bad input (exit 2), without its prefix."""
    code, _, err = cli(*args, check=False)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("attnlab: error: "), err
    return err[len("attnlab: error: "):].rstrip("\n")


@pytest.fixture
def rng():
    return np.random.default_rng(7)
