"""Example datasets bundled with rubricjudge (real data, with their licences)."""

from __future__ import annotations

import difflib
from importlib import resources

from .._errors import ConfigError
from ._io import RubricDataset

__all__ = ["example_datasets", "load_example_dataset"]

# name -> file under rubricjudge/data (the licence and a README sit beside each file)
_EXAMPLES = {
    "llm_rubric_microsoft": "llm_rubric_microsoft.jsonl",
    "llm_rubric_microsoft_chat": "llm_rubric_microsoft_chat.jsonl",
}


def example_datasets() -> list[str]:
    """Return the names of the bundled example datasets."""
    return sorted(_EXAMPLES)


def load_example_dataset(name: str) -> RubricDataset:
    """Load a bundled example dataset by name.

    ``"llm_rubric_microsoft"``: 223 real IT-help dialogues from microsoft/LLM-Rubric (MIT),
    nine multi-choice questions, one human judge's answers as ground truth; each
    dialogue as text. ``"llm_rubric_microsoft_chat"``: the same dialogues, questions and
    answers, each dialogue a conversation (its sources in a system message).

    Raises:
        ConfigError: no example has that name; the message lists the names.
    """
    if name not in _EXAMPLES:
        near = difflib.get_close_matches(name, list(_EXAMPLES), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        valid = ", ".join(repr(n) for n in example_datasets())
        raise ConfigError(f"no example dataset {name!r}{hint} (available: {valid})")
    resource = resources.files("rubricjudge").joinpath("data", _EXAMPLES[name])
    with resources.as_file(resource) as path:
        return RubricDataset.from_file(path)
