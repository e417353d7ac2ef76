"""Prompt tokens per judged criterion: rubricjudge's default prompts against the seeds'.

Run: ``python benchmarks/prompt_tokens.py``. Tokens are estimated as characters / 4.

The upstream system prompts are not copied here; only their measured sizes are:

* autorubric ``GRADER_SYSTEM_PROMPT_DEFAULT`` (binary criteria), delip/autorubric
  ``src/autorubric/prompts.py`` at commit 007d67e39a7db23e7c1b855f5f23f65f05434ce7:
  7,710 characters with its verdict definitions filled in.
* ``rubric`` 1.3.x ``PerCriterionGrader.DEFAULT_SYSTEM_PROMPT``,
  The-LLM-Data-Company/rubric ``src/rubric/autograders/per_criterion_grader.py`` at
  commit 2fbe14009cb25bd29f63b4788be98ecc66a460fd: 5,211 characters.

Their user prompts are rebuilt from the tag layout those files use (criterion type,
criterion, query, reference, submission), which is what varies per item.
"""

from __future__ import annotations

import json
from pathlib import Path

from rubricjudge import Criterion, Rubric
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._graders._prompts import approx_tokens

ROOT = Path(__file__).resolve().parent.parent
AUTORUBRIC_SYSTEM_CHARS = 7710
RUBRIC_SYSTEM_CHARS = 5211


def sample_rubric() -> Rubric:
    path = ROOT / "examples" / "native" / "answer_quality.yaml"
    if path.is_file():
        try:
            return Rubric.from_file(path)
        except Exception:  # the formats module may not be there yet
            pass
    return Rubric(
        [
            Criterion(
                name="cause", weight=10, requirement="Names Rayleigh scattering as the cause"
            ),
            Criterion(
                name="wavelength", weight=6, requirement="Says shorter wavelengths scatter more"
            ),
            Criterion(name="clear", weight=4, requirement="Is clear and under 120 words"),
            Criterion(name="myth", weight=-8, requirement="Claims the sky reflects the ocean"),
        ]
    )


def answers() -> list[dict[str, object]]:
    lines = (ROOT / "examples" / "answers.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines if x.strip()]


def as_text(sub: object) -> str:
    if isinstance(sub, dict):
        thinking, output = sub.get("thinking", ""), sub.get("output", "")
        return f"<thinking>{thinking}</thinking>\n<output>{output}</output>"
    return str(sub)


def autorubric_user(c: Criterion, sub: str, query: str | None) -> str:
    kind = "negative" if c.weight < 0 else "positive"
    q = f"<input>{query}</input>\n\n" if query else ""
    return (
        f"<criterion_type>\n{kind}\n</criterion_type>\n\n<criterion>\n{c.requirement}\n"
        f"</criterion>\n\n{q}<submission>\n{sub}\n</submission>"
    )


def rubric_user(c: Criterion, sub: str, query: str | None) -> str:
    kind = "negative" if c.weight < 0 else "positive"
    q = f"<query>{query}</query>" if query else ""
    return (
        f"<criterion_type>\n{kind}\n</criterion_type>\n\n<criterion>\n{c.requirement}\n"
        f"</criterion>\n\n{q}\n\n<response>\n{sub}\n</response>"
    )


def main() -> None:
    rubric = sample_rubric()
    items = answers()
    grader = CriterionGrader("fake")
    ours_total = ours_uncached = auto_total = rub_total = content = 0
    n = 0
    for it in items:
        query = str(it.get("query") or "") or None
        sub_text = as_text(it["submission"])
        ctx = grader._context(rubric, it["submission"], query, None, None, None)
        prefix = grader.prefix(ctx)
        for i, c in enumerate(rubric.leaves()):
            req = grader.request(ctx, prefix, i, c, None)
            ours = approx_tokens(req.system) + approx_tokens(req.user)
            ours_total += ours
            # with a prompt cache, only the first criterion pays for the prefix
            ours_uncached += approx_tokens(req.user[req.shared_prefix_chars :])
            auto_total += AUTORUBRIC_SYSTEM_CHARS // 4 + approx_tokens(
                autorubric_user(c, sub_text, query)
            )
            rub_total += RUBRIC_SYSTEM_CHARS // 4 + approx_tokens(rubric_user(c, sub_text, query))
            content += approx_tokens(c.requirement + sub_text + (query or ""))
            n += 1
    print(f"{len(items)} answers x {len(rubric.leaves())} criteria = {n} judged criteria")
    print("prompt tokens per judged criterion (chars / 4):")
    print(f"{'':24}{'total':>8}{'overhead':>10}")
    for name, total in (
        ("rubricjudge", ours_total),
        ("autorubric", auto_total),
        ("rubric (1.3)", rub_total),
    ):
        print(f"{name:24}{total / n:8.0f}{(total - content) / n:10.0f}")
    print(
        f"rubricjudge, not counting the cached shared prefix: {ours_uncached / n:.0f} tokens "
        "per criterion after the first"
    )
    print(f"ratio autorubric / rubricjudge: {auto_total / ours_total:.1f}x")
    print(f"ratio rubric / rubricjudge: {rub_total / ours_total:.1f}x")


if __name__ == "__main__":
    main()
