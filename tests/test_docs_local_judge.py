"""The README's and the docs' examples that use the local judge, run with it for real.

``test_docs`` runs every runnable example with the ``fake`` judge, which checks that
the code runs; this checks that what the examples show is right: each verdict the
embedded judge gives is the one a person would give (issue 35: the README's quick
start once scored "Paris is the capital of France." 0.0, its penalty "Contains a
factual error" judged MET). Each example costs about 1.5 s per judged criterion on
a quiet machine, so only examples whose output shows verdicts are run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# (page, a string that picks its runnable block, lines the output must hold)
CASES = [
    (
        "README.md",
        "Quick start",
        [
            "1.0",
            "MET The answer says the sky's colour comes from sunlight",
            "MET The answer says blue light is scattered more than red light",
            "UNMET The answer says the sky is blue because it reflects the ocean.",
        ],
    ),
    (
        "docs/conversations.md",
        "get_weather",
        ["1.0 [<CriterionVerdict.MET: 'MET'>, <CriterionVerdict.MET: 'MET'>]"],
    ),
]


def _block(page: str, marker: str) -> str:
    text = (ROOT / page).read_text(encoding="utf-8")
    if marker == "Quick start":
        text = text[text.index("## Quick start in Python") :]
    blocks = re.findall(r"^<!-- runnable -->\n```python\n(.*?)^```", text, re.M | re.S)
    found = [b for b in blocks if 'judge="local"' in b and (marker in b or marker == "Quick start")]
    assert found, f"{page}: no runnable block with the local judge and {marker!r}"
    return found[0]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh response cache beside the real model file (no 1.1 GB copy)."""
    pytest.importorskip("llama_cpp")
    from rubricjudge._errors import ConfigError
    from rubricjudge._judges._model_files import default_model_path

    try:
        model = default_model_path()
    except ConfigError as e:
        pytest.skip(str(e))
    root = tmp_path_factory.mktemp("cache")
    (root / "models").mkdir()
    (root / "models" / model.name).symlink_to(model)
    marker = model.with_name(model.name + ".verified.json")  # spares hashing 1.1 GB again
    if marker.is_file():
        shutil.copy2(marker, root / "models" / marker.name)
    return root


@pytest.mark.local_model
@pytest.mark.timeout(900)
@pytest.mark.parametrize(("page", "marker", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_example_shows_the_verdicts_a_person_would_give(
    page: str, marker: str, expected: list[str], cache_dir: Path
) -> None:
    code = _block(page, marker)
    env = {**os.environ, "RUBRICJUDGE_CACHE_DIR": str(cache_dir)}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    for want in expected:
        assert any(line.startswith(want) for line in lines), f"{page}: {want!r}\n{done.stdout}"
