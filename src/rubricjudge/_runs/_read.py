"""A finished run read back: a run directory, or the JSONL file ``rubricjudge grade`` writes.

Both give one report per item (None where an item has none: it failed, or was not
graded yet) and each item's id, which is how two runs pair up. A run directory also
brings the copy of its dataset (human labels, per-item rubrics and thresholds) when
it kept one. ``gate`` and the HTML report read runs through here.
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._errors import ConfigError
from .._limits import json_loads
from .._model._reports import EvaluationReport
from .._model._rubric import Rubric
from .._model._scoring import under_the_rule
from ._engine import DATASET_COPY
from ._fingerprint import item_keys
from ._progress import Progress
from ._store import DB_NAME, RunStore

__all__ = [
    "TRAINING_META",
    "GradedRun",
    "read_graded",
    "read_reports_jsonl",
    "read_run_dir",
    "recorded_training_ids",
    "training_ids",
]

TRAINING_META = "calibration_train_ids"
"""The run store's meta entry: the ids of the items the run's calibration was fitted on."""


def training_ids(grader: object) -> list[str]:
    """The ids the calibration ``grader`` uses was fitted on (none without a calibration)."""
    calibration = getattr(grader, "calibration", None)
    return [str(i) for i in getattr(calibration, "train_ids", None) or []]


@dataclass
class GradedRun:
    """The reports of one run in item order, their ids, and the dataset when the run kept it.

    ``errors[i]`` says why item ``i`` has no report when it failed; an item of a run
    directory that was never graded has neither a report nor an error.
    ``training_ids`` are the items the run's calibration was fitted on (a run
    directory records them): agreement with people leaves them out by default.
    """

    source: str
    ids: list[str]
    reports: list[EvaluationReport | None]
    errors: list[str | None] = field(default_factory=list)
    dataset: Any = None
    run_dir: Path | None = None
    training_ids: list[str] = field(default_factory=list)

    def item_rubric(self, index: int) -> Rubric | None:
        """The rubric of item ``index`` from the dataset copy, or None without one."""
        if self.dataset is None or index >= len(self.dataset.items):
            return None
        rubric: Rubric = self.dataset.get_item_rubric(index)
        return rubric

    def ground_truth(self, index: int) -> Any:
        """The human labels of item ``index`` from the dataset copy, or None."""
        if self.dataset is None or index >= len(self.dataset.items):
            return None
        return getattr(self.dataset.items[index], "ground_truth", None)


def _why(e: ValueError) -> str:
    if isinstance(e, ValidationError):
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the line"
        return f"{where}: {first['msg']}"
    return str(e).splitlines()[0]


def score_problem(data: Any) -> str | None:
    """Why the ``score`` of a report's data is not a score, or None when it is one.

    A score is a JSON number from 0 to 1, or null (nothing was graded). NaN and
    the infinities (which Python's JSON reader accepts) would otherwise pass as "no
    number" (N/A), a number past 1 would weigh in as it is and the text ``"0.5"``
    would be converted: a gate must not pass on any of them.
    """
    if not isinstance(data, dict) or data.get("score") is None:
        return None
    score = data["score"]
    if isinstance(score, bool) or not isinstance(score, int | float):
        return (
            f"'score' is {type(score).__name__} {str(score)[:40]!r}, not a number; "
            "a score is a number from 0 to 1, or null when nothing was graded"
        )
    if not math.isfinite(score):
        return (
            f"'score' is {score}; a score is a number from 0 to 1, or null when nothing was graded"
        )
    if not 0.0 <= score <= 1.0:
        return (
            f"'score' is {score:g}, outside 0 to 1; give the reports `rubricjudge grade` "
            "writes (scores are normalised to [0, 1])"
        )
    return None


def _report(text: str, source: str, line: int | None) -> EvaluationReport:
    """One report read from its JSON text, its score checked, under the failure rule.

    The score is checked by :func:`score_problem`; ``under_the_rule`` drops a score
    stored beside judge failures.

    Raises:
        ValueError: not a report (pydantic's error, or one naming the score).
    """
    data = json_loads(text, source=source, line=line)
    problem = score_problem(data)
    if problem is not None:
        raise ValueError(problem)
    return under_the_rule(EvaluationReport.model_validate(data))


def read_reports_jsonl(
    path: str | Path, *, flag: str = "", progress: Progress | None = None
) -> GradedRun:
    """Read the JSONL file of reports that ``rubricjudge grade -o`` writes.

    Reports are read under the failure rule (``_scoring.under_the_rule``): a score a
    run recorded beside a judge failure, before that rule, is not kept.

    An item's id is its report's ``id`` (``grade`` sets it from the input's ``id``,
    else the input line number). ``flag`` (``"--compare "``) prefixes messages;
    ``progress`` counts the lines read (its total grows by their number first).

    Raises:
        ConfigError: the file cannot be read, a line is not a report, or it holds none.
    """
    path = Path(path)
    reports: list[EvaluationReport | None] = []
    ids: list[str] = []
    try:
        with path.open(encoding="utf-8") as f:
            lines = f.readlines()
        if progress is not None:
            progress.grow(len(lines))
        for n, line in enumerate(lines, 1):
            if progress is not None:
                progress.advance()
            if not line.strip():
                continue
            try:
                report = _report(line, str(path), n)
            except ValueError as e:
                raise ConfigError(
                    f"{flag}{path} line {n}: not a report of `rubricjudge grade` ({_why(e)}); "
                    "give the JSONL that `rubricjudge grade -o` writes, or a run directory"
                ) from None
            reports.append(report)
            ids.append(str(report.id if report.id is not None else n))
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{flag}{path}: cannot read it ({e})") from None
    if not reports:
        raise ConfigError(f"{flag}{path} holds no reports; give the -o file of `rubricjudge grade`")
    return GradedRun(str(path), ids, reports, errors=[None] * len(reports))


def read_run_dir(
    path: str | Path, *, whole_dataset: bool = False, progress: Progress | None = None
) -> GradedRun:
    """Read a run directory: every item in the run's scope, graded or not.

    The scope is what ``--max-items`` left of the dataset; ``whole_dataset`` reads
    every item of the dataset instead (those past the scope have no report).
    ``progress`` counts the reports read (its total grows by their number first).

    Raises:
        ConfigError: the directory holds no run.
    """
    path = Path(path)
    if not (path / DB_NAME).is_file():
        raise ConfigError(
            f"{str(path)!r} is not a run directory (no {DB_NAME}); "
            "give the --run-dir of an earlier `rubricjudge evaluate`"
        )
    dataset = None
    if (path / DATASET_COPY).is_file():
        from .._datasets._io import RubricDataset

        dataset = RubricDataset.from_file(path / DATASET_COPY)
    store = RunStore(path)
    try:
        meta = store.meta()
        stored = list(store.iter_items())
    except sqlite3.Error as e:
        raise ConfigError(f"cannot read the run store of {str(path)!r}: {e}") from None
    finally:
        store.close()
    size = int(meta.get("dataset_size", "0"))
    if not whole_dataset:
        size = int(meta.get("items_in_scope", str(size)))
    size = max([size, *(s.index + 1 for s in stored)])
    reports: list[EvaluationReport | None] = [None] * size
    errors: list[str | None] = [None] * size
    ids: list[str | None] = [None] * size
    if progress is not None:
        progress.grow(len(stored))
    for s in stored:
        if progress is not None:
            progress.advance()
        ids[s.index] = s.key
        errors[s.index] = s.error
        if s.report_json is not None:
            try:
                reports[s.index] = _report(s.report_json, str(path), None)
            except ValueError as e:
                raise ConfigError(
                    f"{str(path)!r}: the stored report of item {s.key!r} cannot be read "
                    f"({_why(e)}); was the run written by another version of rubricjudge?"
                ) from None
    names = item_keys(dataset.items) if dataset is not None else []
    keys = [
        k if k is not None else (names[i] if i < len(names) else f"#{i}") for i, k in enumerate(ids)
    ]
    return GradedRun(
        str(path),
        keys,
        reports,
        errors=errors,
        dataset=dataset,
        run_dir=path,
        training_ids=recorded_training_ids(meta),
    )


def recorded_training_ids(meta: dict[str, str]) -> list[str]:
    """The training ids a run store's ``meta`` records (none for a run without them)."""
    try:
        ids = json.loads(meta.get(TRAINING_META, "[]"))
    except ValueError:
        return []
    return [str(i) for i in ids] if isinstance(ids, list) else []


def read_graded(
    source: str | Path, *, flag: str = "", progress: Progress | None = None
) -> GradedRun:
    """Read a run directory or a JSONL file of reports.

    ``flag`` names the command-line flag that gave ``source``, for messages;
    ``progress`` counts the reports read.

    Raises:
        ConfigError: neither, or not readable as one.
    """
    path = Path(source)
    where = f"{flag} " if flag else ""
    if path.is_dir():
        return read_run_dir(path, progress=progress)
    if path.is_file():
        return read_reports_jsonl(path, flag=where, progress=progress)
    raise ConfigError(
        f"{where}{str(path)!r} is neither a run directory nor a JSONL file of reports; give "
        "the --run-dir of `rubricjudge evaluate` or the -o file of `rubricjudge grade`"
    )
