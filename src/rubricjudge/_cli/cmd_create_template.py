"""``rubricjudge create-template``: write a valid rubric skeleton to fill in.

``--format openrubricrl`` (the default) writes OpenRubricRL's shape: a scale,
weighted criteria, examples and subcriteria. ``--format native`` writes
rubricjudge's own: requirements stated as checks of the answer (MET or UNMET),
one multi-choice criterion and a penalty, the shape that small judges grade best.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from .._formats._load import load_data
from .._formats._text import dump_kind, render, write_text

__all__ = ["native_template", "register", "run", "template"]

# three starting criteria per domain: (name, description); weights 0.4 / 0.3 / 0.3
_CRITERIA: dict[str, list[tuple[str, str]]] = {
    "code": [
        ("correctness", "Does the code solve the problem correctly, edge cases included?"),
        ("style", "Does the code follow the language's conventions?"),
        ("efficiency", "Is the solution efficient enough for the expected inputs?"),
    ],
    "dialogue": [
        ("relevance", "Does the response address what the user asked?"),
        ("helpfulness", "Does the response give useful, accurate information?"),
        ("tone", "Is the tone appropriate for the conversation?"),
    ],
    "creative_writing": [
        ("creativity", "Is the writing original and expressive?"),
        ("coherence", "Does the text flow logically from start to end?"),
        ("engagement", "Is the writing engaging to read?"),
    ],
    "reasoning": [
        ("validity", "Is every step of the reasoning valid?"),
        ("completeness", "Does the reasoning reach and justify a conclusion?"),
        ("clarity", "Is the reasoning easy to follow?"),
    ],
    "general": [
        ("accuracy", "Is the response factually correct?"),
        ("completeness", "Does the response cover everything the task asks for?"),
        ("clarity", "Is the response clear and well organised?"),
    ],
}
_WEIGHTS = (0.4, 0.3, 0.3)

# the native skeleton: two checks of the answer per domain, stated as facts to verify
_CHECKS: dict[str, list[tuple[str, str]]] = {
    "code": [
        ("correct", "TODO: The code returns the right result for the example in the task."),
        ("edge_cases", "TODO: The code handles an empty input without failing."),
    ],
    "dialogue": [
        ("answers", "TODO: The response answers the question the user asked."),
        ("next_step", "TODO: The response tells the user what to do next."),
    ],
    "creative_writing": [
        ("prompt", "TODO: The text is about the subject the prompt gives."),
        ("ending", "TODO: The story has an ending that resolves its conflict."),
    ],
    "reasoning": [
        ("conclusion", "TODO: The answer states a conclusion."),
        ("steps", "TODO: Each step follows from the one before it."),
    ],
    "general": [
        ("answers", "TODO: The answer states the fact the question asks for."),
        ("complete", "TODO: The answer covers every part of the question."),
    ],
}


def template(
    name: str, *, domain: str = "general", scale_min: float = 0.0, scale_max: float = 10.0
) -> dict[str, Any]:
    """A valid OpenRubricRL rubric skeleton: three weighted criteria, one example, subcriteria.

    Raises:
        ConfigError: an unknown domain, an empty name, or a scale whose max is not above its min.
    """
    if not name.strip():
        raise ConfigError("the rubric NAME is empty; give a short identifier like 'code_review'")
    if domain not in _CRITERIA:
        raise ConfigError(f"--domain {domain!r} is unknown; use one of {', '.join(_CRITERIA)}")
    if not (math.isfinite(scale_min) and math.isfinite(scale_max)) or scale_max <= scale_min:
        raise ConfigError(
            f"--scale-max ({scale_max:g}) must be greater than --scale-min ({scale_min:g})"
        )
    span = scale_max - scale_min
    criteria: list[dict[str, Any]] = []
    for (cname, desc), weight in zip(_CRITERIA[domain], _WEIGHTS, strict=True):
        criteria.append({"name": cname, "description": desc, "weight": weight})
    first = criteria[0]["name"]
    criteria[0]["examples"] = {
        "excellent": [
            {
                "input": "TODO: a task given to the model",
                "output": "TODO: an answer that deserves a high score",
                "score": round(scale_min + 0.9 * span, 6),
                "explanation": f"TODO: why this answer is excellent on {first}",
            }
        ],
        "poor": [
            {
                "input": "TODO: the same or another task",
                "output": "TODO: an answer that deserves a low score",
                "score": round(scale_min + 0.2 * span, 6),
                "explanation": f"TODO: why this answer is poor on {first}",
            }
        ],
    }
    criteria[1]["subcriteria"] = [
        {"name": f"{criteria[1]['name']}_part_a", "description": "TODO: one aspect to check"},
        {"name": f"{criteria[1]['name']}_part_b", "description": "TODO: another aspect"},
    ]
    return {
        "name": name,
        "version": "1.0.0",
        "description": f"TODO: what {name} evaluates",
        "domain": domain,
        "scale": {"min": scale_min, "max": scale_max, "type": "continuous"},
        "criteria": criteria,
        "metadata": {"author": "TODO", "tags": [domain], "license": "TODO"},
    }


def native_template(name: str, *, domain: str = "general") -> dict[str, Any]:
    """A valid native rubric skeleton: two checks, one multi-choice criterion, a penalty.

    Raises:
        ConfigError: an unknown domain or an empty name.
    """
    if not name.strip():
        raise ConfigError("the rubric NAME is empty; give a short identifier like 'code_review'")
    if domain not in _CHECKS:
        raise ConfigError(f"--domain {domain!r} is unknown; use one of {', '.join(_CHECKS)}")
    criteria: list[dict[str, Any]] = [
        {"name": cname, "requirement": req, "weight": weight}
        for (cname, req), weight in zip(_CHECKS[domain], (3.0, 2.0), strict=True)
    ]
    criteria.append(
        {
            "name": "clarity",
            "requirement": "TODO: How easy is the answer to follow?",
            "weight": 1.0,
            "options": [
                {"label": "Confusing", "value": 0.0, "description": "TODO: hard to follow"},
                {"label": "Clear", "value": 1.0, "description": "TODO: easy to follow"},
            ],
            "scale_type": "ordinal",
        }
    )
    criteria.append(
        {
            "name": "factual_error",
            "requirement": "TODO: The answer states something false about the subject.",
            "weight": -2.0,
        }
    )
    return {
        "format": "rubricjudge/1",
        "name": name,
        "version": "1.0.0",
        "description": f"TODO: what {name} evaluates",
        "pass_threshold": 0.6,
        "criteria": criteria,
    }


def register(subparsers: Any) -> None:
    """Add the ``create-template`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "create-template",
        help="write a valid rubric skeleton (OpenRubricRL or native)",
        description="Write a rubric skeleton that validates as is; fill in the TODOs. "
        "--format openrubricrl (default): three weighted criteria on a scale, calibration "
        "examples, subcriteria. --format native: rubricjudge's own format, requirements "
        "checked as MET or UNMET, a multi-choice criterion and a penalty. Prints to stdout "
        "without -o; with -o writes JSON for .json and YAML otherwise.",
    )
    p.add_argument("name", metavar="NAME", help="the rubric's name")
    p.add_argument("--domain", default="general", choices=tuple(_CRITERIA), help="its domain")
    p.add_argument(
        "--format",
        choices=["openrubricrl", "native"],
        default="openrubricrl",
        help="openrubricrl (default): OpenRubricRL's format; native: rubricjudge's own",
    )
    p.add_argument("--scale-min", type=float, default=0.0, metavar="A", help="default 0")
    p.add_argument("--scale-max", type=float, default=10.0, metavar="B", help="default 10")
    p.add_argument("-o", "--output", metavar="FILE", help="file to write (default: stdout)")
    p.add_argument("--force", action="store_true", help="overwrite an existing FILE")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build the skeleton, check it loads, and write it."""
    if args.format == "native":
        if args.scale_min != 0.0 or args.scale_max != 10.0:
            raise ConfigError("--scale-min and --scale-max apply to --format openrubricrl")
        data = native_template(args.name, domain=args.domain)
    else:
        data = template(
            args.name, domain=args.domain, scale_min=args.scale_min, scale_max=args.scale_max
        )
    load_data(data, format=args.format, source="the template")  # never write an invalid one
    if args.output is None:
        sys.stdout.write(render(data, "yaml"))
        return 0
    dest = Path(args.output)
    if dest.exists() and not args.force:
        raise ConfigError(f"{args.output!r} exists; pass --force to overwrite it")
    write_text(dest, render(data, dump_kind(dest)), flag="-o")
    kind = "native" if args.format == "native" else "OpenRubricRL"
    print(f"wrote {dest} ({kind} template, domain {args.domain})", file=sys.stderr)
    return 0
