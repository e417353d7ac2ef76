"""The graders' closed choices are written once, and the helpers do not import the grader.

``_graders._options`` holds each choice as a ``Literal`` with its values; the CLI
flags that list the same values by hand must list exactly these. ``_repeats``,
``_scoped`` and ``_shown`` get values, callables or small protocols from the
per-criterion grader, never the grader's module (that made an import circle).
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from rubricjudge import ConfigError
from rubricjudge._cli._grader_args import add_conversation_args
from rubricjudge._cli._repeat_args import add_repeat_args
from rubricjudge._cli._trust_args import add_trust_args
from rubricjudge._graders import _options
from rubricjudge._graders._options import check_choice

GRADERS = Path(_options.__file__).parent


def test_check_choice_returns_the_value_or_names_every_valid_one() -> None:
    assert check_choice("evidence", "all", _options.EVIDENCE_MODES) == "all"
    with pytest.raises(ConfigError, match=r"^evidence 'none' is not one of: penalties, all, off$"):
        check_choice("evidence", "none", _options.EVIDENCE_MODES)
    with pytest.raises(ConfigError, match=r"^on_error 'skip' is not 'record' or 'raise'$"):
        check_choice("on_error", "skip", _options.ON_ERROR)
    with pytest.raises(ConfigError, match=r"\(--repeat-variation\)$"):
        check_choice("repeat_variation", 1, _options.REPEAT_VARIATIONS, flag="--repeat-variation")


def _choices(add: object, flag: str) -> list[str]:
    parser = argparse.ArgumentParser()
    add(parser)  # type: ignore[operator]
    action = next(a for a in parser._actions if flag in a.option_strings)
    return list(action.choices or [])


@pytest.mark.parametrize(
    ("add", "flag", "values"),
    [
        (add_trust_args, "--verdict-method", _options.VERDICT_METHOD_CHOICES),
        (add_trust_args, "--evidence", _options.EVIDENCE_MODES),
        (add_trust_args, "--evidence-policy", _options.EVIDENCE_POLICIES),
        (add_repeat_args, "--repeat-variation", _options.REPEAT_VARIATIONS),
        (add_conversation_args, "--over-budget", _options.OVER_BUDGET_POLICIES),
    ],
)
def test_the_cli_offers_exactly_the_graders_choices(
    add: object, flag: str, values: tuple[str, ...]
) -> None:
    assert sorted(_choices(add, flag)) == sorted(values)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.module or ""
        for node in ast.walk(tree)  # TYPE_CHECKING blocks included
        if isinstance(node, ast.ImportFrom) and node.level == 1
    }


@pytest.mark.parametrize("helper", ["_repeats", "_scoped", "_shown", "_question", "_leaves"])
def test_helpers_of_the_criterion_grader_do_not_import_it(helper: str) -> None:
    assert "_criterion" not in _imports(GRADERS / f"{helper}.py")
