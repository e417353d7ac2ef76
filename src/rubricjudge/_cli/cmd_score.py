"""``rubricjudge score``: score verdicts against a rubric, without any judge."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from .._errors import ConfigError, VerdictError
from .._formats._load import load_file
from .._limits import DataLimitError, json_loads, read_text
from .._model._reports import CriterionReport, EvaluationReport
from .._model._scoring import (
    COMPAT_CHOICES,
    CannotAssessStrategy,
    ScoringPolicy,
    finalize,
    reports_from_verdicts,
)

__all__ = ["register", "run"]

HELP = "compute a score from verdicts (no judge)"
DESCRIPTION = """\
Score a rubric from verdicts you already have (human labels, another tool's output).

The verdicts file is JSON: a list with one value per leaf criterion, in order, or an
object keyed by criterion name or id. Values: MET, UNMET, CANNOT_ASSESS, true/false,
1/0 for binary criteria; an option label (or CANNOT_ASSESS) for multi-choice ones;
a number on the scale (or CANNOT_ASSESS) for criteria scored on a scale (7.5 of
0-10; a whole number on a discrete scale). A number off the scale is an error.

--compat dataknobs scores as dataknobs' executor does: CANNOT_ASSESS is worth 0,
score = sum(w*s) / sum(w) with negative weights and no clamp (0 when the weights
sum to 0); --cannot-assess and --partial-credit do not apply then.
"""


def register(subparsers: Any) -> None:
    """Add the ``score`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "score",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("rubric", metavar="RUBRIC", help="rubric file (any supported format)")
    p.add_argument("--verdicts", required=True, metavar="FILE", help="JSON file of verdicts")
    p.add_argument(
        "--cannot-assess",
        choices=[s.value for s in CannotAssessStrategy],
        default=CannotAssessStrategy.SKIP.value,
        help="what CANNOT_ASSESS counts as (default: skip)",
    )
    p.add_argument(
        "--partial-credit",
        type=float,
        default=0.5,
        metavar="X",
        help="credit in [0, 1] for CANNOT_ASSESS under --cannot-assess partial (default: 0.5)",
    )
    p.add_argument(
        "--compat",
        choices=list(COMPAT_CHOICES),
        default="rubricjudge",
        help="whose scoring rules: rubricjudge's (default); autorubric's arithmetic (the "
        "same rules, sums added in rubric order, to match it to the last bit); or dataknobs' "
        "executor's",
    )
    p.add_argument(
        "--no-normalize",
        action="store_true",
        help="report the raw weighted sum as the score instead of a value in [0, 1]",
    )
    p.add_argument("--json", action="store_true", help="print the evaluation report as JSON")
    p.set_defaults(func=run)


def _read_verdicts(path: str) -> Any:
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise ConfigError(f"verdicts file {path!r} not found") from None
    except (DataLimitError, UnicodeDecodeError) as e:
        raise VerdictError(f"{path}: {e}") from None
    except OSError as e:
        raise ConfigError(f"cannot read verdicts file {path!r}: {e.strerror}") from None
    try:
        data = json_loads(text, source=path)
    except DataLimitError as e:
        raise VerdictError(f"{path}: {e}") from None
    except json.JSONDecodeError as e:
        raise VerdictError(
            f"{path}: not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        ) from None
    if not isinstance(data, list | dict):
        raise VerdictError(
            f"{path}: expected a list (one verdict per leaf criterion, in order) or an object "
            f"keyed by criterion name/id, got {type(data).__name__}"
        )
    return data


def run(args: argparse.Namespace) -> int:
    """Score the verdicts and print the result."""
    try:
        policy = ScoringPolicy(
            CannotAssessStrategy(args.cannot_assess), args.partial_credit, not args.no_normalize
        )
    except ValueError as e:
        raise ConfigError(f"--partial-credit: {e}") from None
    if args.compat == "dataknobs":
        policy = ScoringPolicy.dataknobs(normalize=not args.no_normalize)
    elif args.compat == "autorubric":
        policy = replace(policy, compat="autorubric")
    rubric = load_file(args.rubric)
    verdicts = _read_verdicts(args.verdicts)
    try:
        reports = reports_from_verdicts(rubric, verdicts)
    except VerdictError as e:
        raise VerdictError(f"{args.verdicts}: {e}") from None
    report = finalize(rubric, reports, policy)
    if args.json:
        print(json.dumps(report.to_jsonable(), indent=2, ensure_ascii=False))
    else:
        print(summary(report, policy, rubric_has_sections=bool(rubric.sections)))
    return 0


def _fmt(x: float) -> str:
    return f"{x:.4f}".rstrip("0").rstrip(".") if x == x else "nan"


def _outcome(r: CriterionReport, policy: ScoringPolicy) -> str:
    if r.children:
        value = r.score_value
        return "n/a" if value is None else _fmt(value)
    if r.selection is not None:
        s = r.selection
        return f"{s.label} (N/A)" if s.na else f"{s.label} ({_fmt(s.value)})"
    if r.scale_score is not None:
        return f"{_fmt(r.scale_score.score)} on the scale ({_fmt(r.scale_score.value)})"
    verdict = r.verdict.value if r.verdict is not None else "?"
    if r.verdict is not None and r.verdict.value == "CANNOT_ASSESS":
        dataknobs = policy.compat == "dataknobs"
        verdict += " [0, dataknobs]" if dataknobs else f" [{policy.cannot_assess.value}]"
    return verdict


def _lines(reports: list[CriterionReport], policy: ScoringPolicy, depth: int) -> list[str]:
    out = []
    for r in reports:
        label = r.key or r.requirement
        if len(label) > 60:
            label = label[:57] + "..."
        out.append(f"{'  ' * depth}  {_outcome(r, policy):<28} w={_fmt(r.weight):<6} {label}")
        out.extend(_lines(r.children or [], policy, depth + 1))
    return out


def summary(report: EvaluationReport, policy: ScoringPolicy, *, rubric_has_sections: bool) -> str:
    """Return a readable, multi-line summary of a scored report."""
    score = "none" if report.score is None else _fmt(report.score)
    kind = "raw weighted sum" if not policy.normalize else "in [0, 1]"
    if policy.compat == "dataknobs" and policy.normalize:
        kind = "dataknobs: sum(w*s) / sum(w)"
    lines = [f"score: {score} ({kind})"]
    if report.raw_score is not None:
        lines.append(f"raw score: {_fmt(report.raw_score)}")
    if report.overall_score is not None:
        lines.append(f"on the scale: {_fmt(report.overall_score)}")
    if report.scaled_score is not None and report.scaled_score != report.overall_score:
        lines.append(f"on the scale, rounded: {_fmt(report.scaled_score)}")
    if report.passed is not None:
        lines.append(f"passed: {'yes' if report.passed else 'no'}")
    if report.cannot_assess_count:
        counted = "0, dataknobs" if policy.compat == "dataknobs" else policy.cannot_assess.value
        lines.append(f"cannot assess: {report.cannot_assess_count} (counted as {counted})")
    lines.append("criteria:")
    lines.extend(_lines(report.report or [], policy, 0))
    if rubric_has_sections:
        lines.append("sections:")
        for s in report.by_section(policy):
            value = "n/a" if s.score is None else _fmt(s.score)
            name = s.section if s.section is not None else "(no section)"
            lines.append(f"  {name}: {value} (raw {_fmt(s.raw_score)}, {s.criteria} criteria)")
    return "\n".join(lines)
