"""What starting rubricjudge loads (issue 23): no SDK, numpy, scipy, matplotlib or llama-cpp.

``rubricjudge --help`` took 2 s and 107 MB because the CLI's imports reached the
batch runner, which loaded the ``anthropic`` SDK, and the run summary, which
loaded numpy. Each check runs in a fresh interpreter and reads ``sys.modules``.
Timing targets live in ``benchmarks/``; this test checks what is loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = (
    "aiohttp",
    "anthropic",
    # the integrations' frameworks (issue 36): none is loaded before its adapter is used
    "datasets",
    "deepeval",
    "inspect_ai",
    "mlflow",
    "opentelemetry",
    "jinja2",
    "litellm",
    "llama_cpp",
    "matplotlib",
    "numpy",
    "openai",
    "psycopg",
    "ray",
    "rapidfuzz",
    "scipy",
    "sklearn",
    "starlette",
    "tqdm",
    "uvicorn",
)

PROBE = """
import contextlib, io, json, sys
{code}
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}})))
"""

HELP = """
from rubricjudge._cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit:
        pass
"""


def loaded(code: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(code=code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_import_rubricjudge_loads_no_heavy_module() -> None:
    got = loaded("import rubricjudge")
    assert "rubricjudge" in got
    assert sorted(got & set(HEAVY)) == []


@pytest.mark.parametrize("argv", [["--help"], ["grade", "--help"], ["evaluate", "--help"]])
def test_help_loads_no_heavy_module(argv: list[str]) -> None:
    got = loaded(HELP.format(argv=argv))
    assert "argparse" in got and "rubricjudge" in got
    assert sorted(got & set(HEAVY)) == []


def test_the_probe_sees_a_heavy_module_when_one_is_loaded() -> None:
    # the check can fail: loading the batch runner brings in what --help must not
    got = loaded("import rubricjudge._runs._batch_run; import rubricjudge._runs._evaluate")
    assert got & {"aiohttp", "tqdm", "rapidfuzz"}


def test_top_level_help_loads_no_grader() -> None:
    """Issue 39: --help loaded the graders for three lists of choices (a fifth of start-up)."""
    code = "import contextlib, io, json, sys\n" + HELP.format(argv=["--help"])
    proc = subprocess.run(
        [sys.executable, "-c", code + "\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    modules = set(json.loads(proc.stdout.splitlines()[-1]))
    assert "rubricjudge._cli.cmd_grade" in modules
    assert not {m for m in modules if m.startswith(("rubricjudge._graders", "rubricjudge._judges"))}
