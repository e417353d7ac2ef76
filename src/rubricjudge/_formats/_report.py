"""What a conversion changed, and what it could not express."""

from __future__ import annotations

from dataclasses import dataclass, field

from .._errors import ConfigError
from .._model._rubric import Criterion, Rubric

__all__ = ["ConversionReport", "criterion_label", "relations_cannot"]


def criterion_label(path: str, criterion: Criterion) -> str:
    """``criteria[2] ('accuracy')``: a criterion's place and key for a message."""
    return f"{path} ({criterion.key!r})" if criterion.key else path


@dataclass
class ConversionReport:
    """Collects lossy changes (warnings) and impossibilities (errors) of one conversion."""

    target: str
    changes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    groups: dict[str, list[str]] = field(default_factory=dict)

    def change(self, message: str) -> None:
        """Record a change the conversion made (the output differs from the input)."""
        if message not in self.changes:
            self.changes.append(message)

    def group(self, message: str, where: str) -> None:
        """Record a change that applies to many places; reported once, listing them."""
        self.groups.setdefault(message, []).append(where)

    def all_changes(self) -> list[str]:
        """Every change: the grouped ones (with their places) first, then the others."""
        grouped = [f"{msg}: {', '.join(places)}" for msg, places in self.groups.items()]
        return [*grouped, *self.changes]

    def cannot(self, message: str) -> None:
        """Record something the target format cannot express."""
        self.errors.append(message)

    def raise_if_impossible(self) -> None:
        """Raise ConfigError listing everything that cannot be expressed, if anything."""
        if self.errors:
            lines = "\n  ".join(self.errors)
            raise ConfigError(f"cannot write this rubric as {self.target}:\n  {lines}")


def relations_cannot(rubric: Rubric, rep: ConversionReport) -> None:
    """Record the relations and gates, which no other format can express.

    Dropping them would change the verdicts and the scores the rubric gives, so the
    conversion is refused rather than made with a warning.
    """
    for i, rel in enumerate(rubric.relations or []):
        rep.cannot(
            f"relations[{i}] ({rel.describe()}): {rep.target} has no relations between "
            "criteria; keep the rubric in the native format (or remove the relation)"
        )
    gates = [c for c in rubric.iter_all() if c.gate is not None]
    for c in gates:
        rep.cannot(
            f"criterion {c.key or c.requirement[:40]!r}: {rep.target} has no gates; keep the "
            "rubric in the native format (or remove 'gate')"
        )
