"""Every loader, fuzzed (issue 11): any input is a valid object or a clean error.

Rubric files in each format, datasets (JSON, YAML, JSONL), verdict files, calibration
files, ``grade`` input lines and scoring-server bodies get random documents (built
from each format's own keys, so the loaders get past their first check), random text
and random bytes. Each must end in a value or a ``RubricJudgeError`` that names the
file; on the server, in a 4xx answer. Memory is measured with tracemalloc: reading an
input may take a bounded multiple of its size, never what a bomb would expand to.
"""

from __future__ import annotations

import io
import json
import math
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rubricjudge import RubricDataset, RubricJudgeError, load_rubrics
from rubricjudge._calibration._groups import Calibration
from rubricjudge._cli._grade_io import read_items
from rubricjudge._cli.main import main
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._fake import FakeJudge
from rubricjudge._server._app import create_app
from rubricjudge._server._settings import ServerSettings
from rubricjudge._server._sources import DirectorySource

FUZZ = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
KEYS = [
    # native and autorubric
    "criteria", "name", "weight", "requirement", "options", "label", "value", "na",
    "subcriteria", "sections", "rubric", "rubrics", "format", "scale", "metadata",
    "pass_threshold", "id", "version", "description", "required", "scale_type",
    # dataknobs
    "levels", "score", "scoring_method", "type", "function_ref", "schema", "schema_ref",
    "decode_prompt", "target_type", "indicators",
    # OpenRubricRL
    "domain", "min", "max", "examples", "explanation", "hybrid_metrics", "metric",
    # datasets, verdicts, calibrations, server bodies
    "prompt", "items", "submission", "ground_truth", "query", "reference", "judge",
    "groups", "labels", "fits", "probabilities", "thinking", "output", "references",
]  # fmt: skip
WORDS = ["MET", "UNMET", "CANNOT_ASSESS", "llm", "function", "json_schema", "llm_decode",
         "1.0.0", "2.0.0", "code", "rubricjudge/1", "binary", "ordinal", "nominal", "yes",
         "{{ content }}", "rubricjudge.meta:check_threshold", "os:system"]  # fmt: skip
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(WORDS)
)
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=6)
    ),
    max_leaves=40,
)


def _yaml(value: Any) -> str:
    return yaml.safe_dump(value, allow_unicode=True)


def _json(value: Any) -> str:
    return json.dumps(value)  # NaN and Infinity included: json.loads reads them back


def bomb(levels: int = 9) -> str:
    text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    prev = "a"
    for name in "bcdefghijk"[:levels]:
        text += f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]\n"
        prev = name
    return text


HOSTILE = [
    bomb(),
    "criteria: " + "[" * 100_000 + "]" * 100_000,
    '{"criteria": [{"name": "a", "weight": ' + "9" * 5000 + ', "requirement": "x"}]}',
    "- name: a\n  weight: 1\n  requirement: x\n  metadata: " + "{k: " * 300 + "1" + "}" * 300,
]


class Budget:
    """Peak memory of one call, against a bound that grows with the input only."""

    def __init__(self, size: int) -> None:
        self.limit = 64 * 1024 * 1024 + 400 * size

    def __enter__(self) -> Budget:
        tracemalloc.start()
        return self

    def __exit__(self, *exc: object) -> None:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < self.limit, f"peak {peak:,} bytes over {self.limit:,}"


def clean(load: Callable[[], Any], path: Path, size: int) -> None:
    """``load()`` returns, or raises a RubricJudgeError naming ``path``; nothing else."""
    with Budget(size):
        try:
            load()
        except RubricJudgeError as e:
            assert path.name in str(e), f"{type(e).__name__} does not name the file: {e}"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def _write(workdir: Path, name: str, text: str | bytes) -> Path:
    path = workdir / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


# -- rubric files, every format ------------------------------------------------------------


@FUZZ
@given(st.one_of(documents, st.fixed_dictionaries({"criteria": documents})), st.booleans())
@example(None, True)
def test_any_rubric_document_loads_or_names_the_file(
    workdir: Path, value: Any, as_yaml: bool
) -> None:
    text = _yaml(value) if as_yaml else _json(value)
    path = _write(workdir, "rubric.yaml" if as_yaml else "rubric.json", text)
    clean(lambda: load_rubrics(path), path, len(text))


@FUZZ
@given(st.text(max_size=300) | st.sampled_from(HOSTILE) | st.binary(max_size=200))
def test_any_rubric_text_or_bytes_loads_or_names_the_file(workdir: Path, text: str | bytes) -> None:
    for name in ("rubric.yaml", "rubric.json"):
        path = _write(workdir, name, text)
        clean(lambda path=path: load_rubrics(path), path, len(text))


PEER_SHAPES = {
    "dataknobs": {
        "id": "r", "name": "r", "version": "1.0.0", "description": "d", "target_type": "t",
        "pass_threshold": 0.5,
    },
    "openrubricrl": {"name": "r", "version": "2.0.0", "domain": "code",
                     "scale": {"min": 0, "max": 10}},
    "autorubric": {"sections": None},
}  # fmt: skip


@FUZZ
@given(st.sampled_from(sorted(PEER_SHAPES)), st.lists(documents, max_size=3), documents)
def test_peer_formats_with_random_criteria_load_or_name_the_file(
    workdir: Path, fmt: str, criteria: list[Any], extra: Any
) -> None:
    value: dict[str, Any] = dict(PEER_SHAPES[fmt])
    if fmt == "autorubric":
        value["sections"] = [{"name": "s", "criteria": criteria}]
    else:
        value["criteria"] = criteria
    if isinstance(extra, dict):
        value.update(extra)
    text = _yaml(value)
    path = _write(workdir, f"{fmt}.yaml", text)
    clean(lambda: load_rubrics(path), path, len(text))
    clean(lambda: load_rubrics(path, format=fmt), path, len(text))


# -- datasets --------------------------------------------------------------------------------

RUBRIC = [{"name": "a", "weight": 1, "requirement": "x"}]


@FUZZ
@given(documents, st.sampled_from(["json", "yaml", "jsonl"]), st.booleans())
def test_any_dataset_file_loads_or_names_the_file(
    workdir: Path, value: Any, kind: str, wrapped: bool
) -> None:
    if wrapped:
        value = {"prompt": "q", "rubric": RUBRIC, "items": value}
    if kind == "jsonl":
        rows = value if isinstance(value, list) and value else [value]
        text = "\n".join(_json(r) for r in rows) + "\n"
    else:
        text = _yaml(value) if kind == "yaml" else _json(value)
    path = _write(workdir, f"data.{kind}", text)
    clean(lambda: RubricDataset.from_file(path), path, len(text))


@FUZZ
@given(st.text(max_size=300) | st.sampled_from(HOSTILE) | st.binary(max_size=200))
def test_any_dataset_text_or_bytes_loads_or_names_the_file(
    workdir: Path, text: str | bytes
) -> None:
    for kind in ("json", "yaml", "jsonl"):
        path = _write(workdir, f"data.{kind}", text)
        clean(lambda path=path: RubricDataset.from_file(path), path, len(text))


# -- verdict files, calibration files, grade input -------------------------------------------


@FUZZ
@given(documents | st.text(max_size=200) | st.sampled_from(HOSTILE))
def test_any_verdict_file_scores_or_is_one_clean_error(
    workdir: Path, capsys: pytest.CaptureFixture[str], value: Any
) -> None:
    rubric = _write(
        workdir,
        "scored.yaml",
        "- name: a\n  weight: 1\n  requirement: x\n"
        "- name: b\n  weight: 2\n  requirement: y\n"
        "  options: [{label: lo, value: 0}, {label: hi, value: 1}]\n",
    )
    text = value if isinstance(value, str) else _json(value)
    path = _write(workdir, "verdicts.json", text)
    with Budget(len(text)):
        code = main(["score", str(rubric), "--verdicts", str(path), "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if code == 0:
        assert math.isfinite(json.loads(out).get("score", 0.0) or 0.0)
    else:
        assert code == 1 and err.startswith("rubricjudge: error:") and path.name in err


@FUZZ
@given(documents | st.text(max_size=200) | st.sampled_from(HOSTILE) | st.binary(max_size=100))
def test_any_calibration_file_loads_or_names_the_file(workdir: Path, value: Any) -> None:
    text = value if isinstance(value, str | bytes) else _json(value)
    path = _write(workdir, "calibration.json", text)
    clean(lambda: Calibration.load(path), path, len(text))


@FUZZ
@given(st.lists(documents | st.text(max_size=40), max_size=5))
def test_any_grade_input_reads_or_names_the_line(rows: list[Any]) -> None:
    lines = [r if isinstance(r, str) else _json(r) for r in rows]
    text = "\n".join(line.replace("\n", " ") for line in lines) + "\n"
    with Budget(len(text)):
        try:
            read_items(io.StringIO(text), "input.jsonl")
        except RubricJudgeError as e:
            assert str(e).startswith("input.jsonl"), str(e)


# -- scoring-server bodies -------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, httpx.Client]]:
    from tests.support.served import Served

    rubrics = tmp_path_factory.mktemp("served")
    (rubrics / "r.yaml").write_text(
        "- name: a\n  weight: 1\n  requirement: x\n"
        "- name: b\n  weight: 1\n  requirement: y\n"
        "  options: [{label: lo, value: 0}, {label: hi, value: 1}]\n"
    )
    settings = ServerSettings(
        source=DirectorySource(rubrics),
        grader=CriterionGrader(judge=FakeJudge()),
        token=None,
        max_body_bytes=300_000,
        max_batch=4,
    )
    with Served(create_app(settings)) as s, httpx.Client(base_url=s.url, timeout=60) as c:
        yield s.url, c


body_documents = st.one_of(
    documents,
    st.fixed_dictionaries({"rubric": st.just("r"), "submission": documents}),
    st.fixed_dictionaries(
        {"rubric": st.just("r"), "submission": st.text(max_size=30)},
        optional={"query": documents, "id": documents, "reference": documents},
    ),
    st.fixed_dictionaries({"rubric": st.just("r"), "items": st.lists(documents, max_size=5)}),
)


@FUZZ
@given(
    st.sampled_from(["/score", "/score/batch"]),
    body_documents.map(lambda v: _json(v).encode())
    | st.binary(max_size=200)
    | st.sampled_from([h.encode() for h in HOSTILE[1:3]]),
)
def test_any_server_body_is_answered_without_a_500(
    server: tuple[str, httpx.Client], path: str, body: bytes
) -> None:
    _, client = server
    r = client.post(path, content=body, headers={"Content-Type": "application/json"})
    assert r.status_code in (200, 400, 404, 413, 422), (r.status_code, r.text[:300])
    assert "error" in r.json() or r.status_code == 200
