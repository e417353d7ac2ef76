"""A calibration: fitted groups of criteria, written to and read from JSON.

Each criterion is calibrated by the most specific group that was fitted: its own
(``criterion:<id>``, enough labels on that very criterion), else the pooled group
of its kind (``pooled:positive`` for binary criteria with a positive weight,
``pooled:negative`` for penalties, ``pooled:options:<id>`` for multi-choice
criteria with the same options). A criterion with no group is left as the judge
answered it. A criterion's id hashes what it asks (requirement, sign of the
weight, options), not its name, so per-item rubrics that repeat a criterion share it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .._errors import ConfigError
from .._limits import json_loads, read_text
from .._model._rubric import CalibrationExample, Criterion
from .._outfile import write_output
from ._checks import ANSWERS, POSITIONS, check_id, check_labels, check_parameter, labels_id, where
from ._fit import Fit, apply_fit
from ._probe import Probe

__all__ = ["FORMAT", "POSITIONS", "Calibration", "CalibrationGroup", "criterion_id", "group_ids"]

FORMAT: Literal["rubricjudge-calibration/1"] = "rubricjudge-calibration/1"
BINARY = ("MET", "UNMET")


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def criterion_id(criterion: Criterion) -> str:
    """A short stable id of what ``criterion`` asks (not of its name)."""
    parts: list[Any] = [" ".join(criterion.requirement.split()), criterion.weight < 0]
    if criterion.is_multi_choice:
        parts.append([o.label for o in criterion.options or []])
    text = json.dumps(parts, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _options_id(criterion: Criterion) -> str:
    return labels_id([o.label for o in criterion.options or []])


def group_ids(criterion: Criterion) -> list[str]:
    """The groups that may calibrate ``criterion``, most specific first."""
    own = f"criterion:{criterion_id(criterion)}"
    if criterion.is_multi_choice:
        return [own, f"pooled:options:{_options_id(criterion)}", positions_id(criterion)]
    return [own, "pooled:negative" if criterion.weight < 0 else "pooled:positive"]


def positions_id(criterion: Criterion) -> str:
    """The group of multi-choice criteria of one kind and size, calibrated by position.

    Options are labelled by their place in the list (``1`` .. ``n``), so criteria
    whose options differ in wording share what a judge does by place: a bias to the
    last option, or to the top of an ordinal scale.
    """
    n = len(criterion.options or [])
    return f"{POSITIONS}{criterion.scale_type or 'ordinal'}:{n}"


def by_position(criterion: Criterion, probabilities: dict[str, float]) -> dict[str, float]:
    """``probabilities`` keyed by option place (``"1"`` ..) instead of option label."""
    labels = [o.label for o in criterion.options or []]
    return {str(i): probabilities.get(label, 0.0) for i, label in enumerate(labels, 1)}


def position_of(criterion: Criterion, label: str) -> str:
    """The place (``"1"`` ..) of the option labelled ``label``, or ``label`` if none."""
    labels = [o.label for o in criterion.options or []]
    return str(labels.index(label) + 1) if label in labels else label


class CalibrationGroup(BaseModel):
    """One fitted group: its labels, scale and biases, and what it was fitted on.

    ``base`` says what the scale and biases apply to: ``judge``, the judge's own
    probabilities; ``pooled``, the probabilities the pooled group of the criterion's
    kind gives (a criterion's own adjustment on top of the pooled fit, pulled towards
    no change, so a handful of labels already moves its threshold). ``probe``, on a
    pooled group (binary, or multi-choice with one output per label), reads the
    judge's hidden state when the answer has one (the local judge); the scale and
    biases are then the fallback for answers without it.

    Every value is checked when a group is built or read (finite numbers within
    ``PARAMETER_LIMIT``, one bias per label, labels that fit the group's id); a new
    field needs a default so files written before it still load.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    id: str
    labels: list[str]
    scale: float
    bias: list[float]
    base: Literal["judge", "pooled"] = "judge"
    probe: Probe | None = None
    n: int = Field(ge=0)
    counts: dict[str, int] = Field(default_factory=dict)
    description: str = ""
    train_accuracy_raw: float | None = Field(default=None, ge=0.0, le=1.0)
    train_accuracy_calibrated: float | None = Field(default=None, ge=0.0, le=1.0)

    @field_validator("id")
    @classmethod
    def _id(cls, gid: str) -> str:
        check_id(gid)
        return gid

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: list[str], info: ValidationInfo) -> list[str]:
        gid = info.data.get("id")
        if isinstance(gid, str):
            check_labels(gid, labels)
        return labels

    @field_validator("scale")
    @classmethod
    def _scale(cls, scale: float) -> float:
        check_parameter(scale, "the scale")
        return scale

    @field_validator("bias")
    @classmethod
    def _bias(cls, bias: list[float], info: ValidationInfo) -> list[float]:
        labels = info.data.get("labels")
        if isinstance(labels, list) and len(bias) != len(labels):
            raise ValueError(f"{len(bias)} biases for {len(labels)} labels (one bias per label)")
        for i, b in enumerate(bias):
            check_parameter(b, f"bias[{i}]")
        return bias

    @field_validator("counts")
    @classmethod
    def _counts(cls, counts: dict[str, int], info: ValidationInfo) -> dict[str, int]:
        labels = info.data.get("labels")
        if isinstance(labels, list):
            strange = sorted(set(counts) - set(labels))
            if strange:
                raise ValueError(f"counts of labels the group does not have: {strange!r}")
        if any(v < 0 for v in counts.values()):
            raise ValueError("a count is negative")
        return counts

    @model_validator(mode="after")
    def _probe_fits(self) -> CalibrationGroup:
        if self.probe is None:
            return self
        if self.probe.outputs == 1:
            if self.labels != list(BINARY):
                raise ValueError(
                    "probe: a binary probe belongs to a group labelled MET, UNMET; this "
                    f"group's labels are {self.labels!r}"
                )
        elif self.probe.outputs != len(self.labels):
            raise ValueError(
                f"probe: {self.probe.outputs} outputs for a group of {len(self.labels)} labels"
            )
        return self

    def fit(self) -> Fit:
        """This group as a :class:`Fit`."""
        return Fit(labels=tuple(self.labels), scale=self.scale, bias=tuple(self.bias))

    def fits(self, criterion: Criterion) -> bool:
        """Whether this group's labels are the answers ``criterion`` can be given."""
        if self.id.startswith(POSITIONS):
            return len(self.labels) == len(criterion.options or [])
        if criterion.is_multi_choice:
            return set(self.labels) == {o.label for o in criterion.options or []}
        return set(self.labels) <= ANSWERS


class Calibration(BaseModel):
    """A judge's calibration on human labels (``rubricjudge calibrate`` writes it)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    format: Literal["rubricjudge-calibration/1", "rubricate-calibration/1"] = FORMAT
    """Files written under the project's old name (``rubricate-calibration/1``) still load."""
    judge: str
    verdict_method: str
    dataset: str | None = None
    train_ids: list[str] = Field(default_factory=list)
    groups: list[CalibrationGroup] = Field(default_factory=list)
    created_at: str | None = None
    confidence_shares: dict[str, float] = Field(default_factory=dict)
    """Share of the training answers whose calibrated confidence is below each level
    (``"0.70": 0.31``): what a cascade would escalate (``--dry-run`` uses it)."""
    examples: dict[str, dict[str, list[CalibrationExample]]] = Field(default_factory=dict)
    """Labelled training answers to show the judge, by criterion id, then by label
    (``calibrate --examples K``); the groups were fitted with them in the prompt."""

    @field_validator("groups")
    @classmethod
    def _groups(cls, groups: list[CalibrationGroup]) -> list[CalibrationGroup]:
        first: dict[str, int] = {}
        for i, g in enumerate(groups):
            j = first.setdefault(g.id, i)
            if j != i:
                raise ValueError(f"groups[{i}] has the id {g.id!r} of groups[{j}] again")
        return groups

    @field_validator("confidence_shares")
    @classmethod
    def _shares(cls, shares: dict[str, float]) -> dict[str, float]:
        for level, share in shares.items():
            try:
                ok = 0.0 <= float(level) <= 1.0
            except ValueError:
                ok = False
            if not ok:
                raise ValueError(f'the level {level!r} is not a number from 0 to 1 ("0.70")')
            if not 0.0 <= share <= 1.0:
                raise ValueError(f"the share {share!r} at {level!r} is not from 0 to 1")
        return shares

    def examples_for(self, criterion: Criterion) -> dict[str, list[CalibrationExample]] | None:
        """The labelled examples chosen for ``criterion`` (by what it asks), or None."""
        return self.examples.get(criterion_id(criterion)) if self.examples else None

    def share_below(self, level: float) -> float | None:
        """The share of training answers below ``level`` (the nearest recorded level)."""
        if not self.confidence_shares:
            return None
        nearest = min(self.confidence_shares, key=lambda k: abs(float(k) - level))
        return self.confidence_shares[nearest]

    def with_shares(
        self, answers: Sequence[tuple[Criterion, dict[str, float], bytes | None]]
    ) -> Calibration:
        """A copy recording the confidence shares of these judge answers once calibrated.

        Each answer is (criterion, the judge's probabilities, its hidden state or None).
        """
        confidences = []
        for criterion, probs, features in answers:
            decided = self.calibrate(criterion, probs, features)
            confidences.append(max(decided[1].values()) if decided else max(probs.values()))
        if not confidences:
            return self
        levels = [round(0.5 + 0.05 * i, 2) for i in range(10)]
        shares = {f"{x:.2f}": sum(c < x for c in confidences) / len(confidences) for x in levels}
        return self.model_copy(update={"confidence_shares": shares})

    def group_for(self, criterion: Criterion) -> CalibrationGroup | None:
        """The most specific fitted group for ``criterion``, or None."""
        chain = self.chain_for(criterion)
        return chain[-1] if chain else None

    def chain_for(self, criterion: Criterion) -> list[CalibrationGroup]:
        """The groups applied to ``criterion``, in order.

        The most specific fitted group; when it is a criterion's adjustment on the
        pooled fit (``base="pooled"``), the pooled group of its kind comes first.
        """
        by_id = {g.id: g for g in self.groups}
        ids = [gid for gid in group_ids(criterion) if gid in by_id]
        if not ids:
            return []
        first = by_id[ids[0]]
        if first.base == "pooled":
            pooled = [by_id[g] for g in ids[1:] if by_id[g].base == "judge"]
            return [pooled[0], first] if pooled else []
        return [first]

    def needs_features(self) -> bool:
        """Whether a group reads the judge's hidden state (``JudgeRequest.features``)."""
        return any(g.probe is not None for g in self.groups)

    def calibrate(
        self,
        criterion: Criterion,
        probabilities: dict[str, float],
        features: bytes | None = None,
    ) -> tuple[str, dict[str, float], CalibrationGroup] | None:
        """(chosen label, calibrated probabilities, group), or None when nothing applies.

        ``probabilities`` are the judge's (``MET``/``UNMET``/``CANNOT_ASSESS`` or
        option labels); labels outside the group's count as not chosen. ``features``
        is the judge's hidden state, read by a group's probe when there is one. The
        group returned is the last one applied (see :meth:`chain_for`).
        """
        chain = self.chain_for(criterion)
        if not chain:
            return None
        probs: dict[str, float] = dict(probabilities)
        labels: list[str] = []
        calibrated: list[float] = []
        for group in chain:
            if not group.fits(criterion):  # a criterion:<id> group of a hand-edited file
                raise ConfigError(
                    f"calibration group {group.id!r} has the labels {group.labels!r}, which "
                    f"are not the answers of criterion {criterion.key or criterion.requirement!r}; "
                    "refit it with `rubricjudge calibrate`"
                )
            by_place = group.id.startswith(POSITIONS)
            view = by_position(criterion, probs) if by_place else probs
            raw = [max(view.get(label, 0.0), 0.0) for label in group.labels]
            if not sum(raw) > 0:
                return None
            if group.probe is not None and features is not None:
                if group.probe.outputs == 1:
                    p = _sigmoid(group.probe.logit(features, raw[0], raw[1]))
                    calibrated = [p, 1.0 - p]
                else:
                    calibrated = group.probe.probabilities(features, raw)
            else:
                calibrated = apply_fit(group.fit(), raw)
            labels = group.labels
            if by_place:  # back from places to the criterion's own option labels
                options = [o.label for o in criterion.options or []]
                labels = [options[int(x) - 1] for x in group.labels]
            probs = dict(zip(labels, calibrated, strict=True))
        best = max(range(len(calibrated)), key=lambda i: (calibrated[i], -i))
        return labels[best], probs, chain[-1]

    def method_for(self, criterion: Criterion, features: bytes | None) -> str:
        """How ``criterion``'s answer is calibrated, in words for the report."""
        parts = []
        for group in self.chain_for(criterion):
            kind = "probe" if group.probe is not None and features is not None else "scale-bias"
            parts.append(f"{kind} ({group.id})")
        return " then ".join(parts)

    # -- files -------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Calibration:
        """Read a calibration file.

        Raises:
            ConfigError: the file is missing or not a calibration, naming what is wrong.
        """
        p = Path(path)
        try:
            text = read_text(p)
        except OSError as e:
            raise ConfigError(
                f"cannot read the calibration file {str(p)!r}: {e.strerror}"
            ) from None
        except UnicodeDecodeError as e:
            raise ConfigError(
                f"{p}: not UTF-8 text ({e.reason}); give a file `rubricjudge calibrate` wrote"
            ) from None
        except ValueError as e:  # larger than rubricjudge reads
            raise ConfigError(f"{p}: {e}; give a file `rubricjudge calibrate` wrote") from None
        try:
            data = json_loads(text, source=str(p))
        except ValueError as e:
            raise ConfigError(
                f"{p}: not JSON ({e}); give a file `rubricjudge calibrate` wrote"
            ) from None
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            first = e.errors()[0]
            msg = str(first["msg"]).removeprefix("Value error, ")
            more = len(e.errors()) - 1
            also = f" (and {more} more problem{'s' * (more > 1)})" if more else ""
            raise ConfigError(
                f"{p}: {where(first['loc'])}: {msg}{also}; give a file `rubricjudge "
                "calibrate` wrote, or fix the value"
            ) from None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write this calibration as JSON, whole or not at all (see ``_outfile``)."""
        write_output(path, self.model_dump_json(indent=2) + "\n")
