"""RubricJudge on Ray (``pip install 'rubricjudge[ray]'``).

- :func:`grade_dataset`: grade a ``ray.data.Dataset`` with ``map_batches`` over an
  actor pool, each actor holding its grader (and judge) for its whole life.
- :class:`RayExecutor` / :func:`evaluate_on_ray`: ``evaluate`` with Ray actors
  grading and this process committing every judgment to the run store, so
  ``resume`` works as on one machine (``rubricjudge evaluate --executor ray``).

Actors are built from a :class:`~rubricjudge.GraderSpec` (plain data), never from
live graders or judges. Ray is imported when these are called, not on import.
"""

from .._graders._spec import GraderSpec
from .._ray._dataset import REPORT_COLUMNS, grade_dataset, report_columns
from .._ray._executor import RayExecutor, evaluate_on_ray

__all__ = [
    "REPORT_COLUMNS",
    "GraderSpec",
    "RayExecutor",
    "evaluate_on_ray",
    "grade_dataset",
    "report_columns",
]
