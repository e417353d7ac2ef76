"""OpenRubricRL's flows: rubrics in its format, criteria scored on the scale, its reward.

OpenRubricRL rubric files load with :func:`rubricjudge.Rubric.from_file` and
convert with :func:`convert_rubric` (``to="openrubricrl"``); :class:`RubricReward`
computes OpenRubricRL's reward from the exact place on the rubric's scale.
"""

from __future__ import annotations

from ._errors import RewardError
from ._formats._dump import convert_rubric
from ._hybrid._grader import HybridGrader
from ._model._criterion import Scale
from ._model._rubric import HybridMetric, Rubric
from ._rewards._reward import RubricReward

__all__ = [
    "HybridGrader",
    "HybridMetric",
    "RewardError",
    "Rubric",
    "RubricReward",
    "Scale",
    "convert_rubric",
]
