"""``evaluate`` on a Ray cluster: actors grade, the driver commits.

Each actor builds its grader once from a :class:`GraderSpec` (a local model is
then loaded once per actor) and grades many items at once on its own event loop.
An item goes to the actor with the fewest items in flight; the actor streams each
judgment back as its judge answers (a Ray generator), and the driver's run
session commits it to the run store before the item's outcome. Killing the
driver therefore loses what it loses on one machine: the answers in flight.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._errors import ConfigError, RunError
from .._graders._spec import GraderSpec
from .._runs._evaluate import evaluate_sync
from .._runs._job import Job
from .._runs._remote import ItemWorker, RemoteEvent, StoredJudgment
from ._setup import connect, forwarded_env, judge_backends

__all__ = ["GradeActor", "RayExecutor", "evaluate_on_ray"]


class GradeActor:
    """The body of one Ray actor: a grader built once, grading items concurrently."""

    def __init__(self, spec: GraderSpec, env: Mapping[str, str]) -> None:
        os.environ.update(env)
        self._worker = ItemWorker(spec)

    async def ready(self) -> bool:
        """Answer once the grader is built (so a bad spec fails before any item is sent)."""
        return True

    async def grade(self, job: Job, stored: Sequence[StoredJudgment]) -> AsyncIterator[RemoteEvent]:
        """Grade ``job``: each new judgment as it arrives, then the outcome."""
        async for event in self._worker.grade(job, stored):
            yield event


class RayExecutor:
    """Grades ``evaluate``'s items on Ray actors.

    Args:
        spec: the grader each actor builds.
        actors: how many actors (default: one per CPU of the cluster).
        address: a Ray cluster to connect to (``"ray://host:10001"``, ``"auto"``);
            None starts a local instance unless Ray is already initialised.
        num_cpus: CPUs each actor reserves (raise it for a local model with threads).
        forward_env: give the actors the environment variables their judges read
            (``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` for ``openai/``, and so on; the
            cache directory, TLS and proxy settings); False: none.
        extra_env: names of more variables to give them (a LiteLLM provider's key
            that is not named ``*_API_KEY``, say).

    Raises:
        ConfigError: Ray is missing, the cluster cannot be reached, or the spec
            does not build on an actor.
    """

    def __init__(
        self,
        spec: GraderSpec,
        *,
        actors: int | None = None,
        address: str | None = None,
        num_cpus: float = 1,
        forward_env: bool = True,
        extra_env: Sequence[str] = (),
    ) -> None:
        if actors is not None and actors < 1:
            raise ConfigError(f"actors {actors!r} must be at least 1")
        ray = connect(address)
        if actors is None:
            actors = max(1, int(ray.cluster_resources().get("CPU", 1) // max(num_cpus, 1e-9)))
        remote = ray.remote(GradeActor).options(num_cpus=num_cpus, max_concurrency=1000)
        env = forwarded_env(judge_backends(spec), extra_env) if forward_env else {}
        self._actors = [remote.remote(spec, env) for _ in range(actors)]
        self._load = [0] * actors
        try:
            ray.get([a.ready.remote() for a in self._actors])
        except Exception as e:
            self.close()
            cause = getattr(e, "cause", None) or e
            raise ConfigError(f"the grader does not build on a Ray actor: {cause}") from None

    @property
    def width(self) -> int:
        """How many actors grade at once."""
        return len(self._actors)

    async def stream(
        self, job: Job, stored: Sequence[StoredJudgment]
    ) -> AsyncIterator[RemoteEvent]:
        """Grade ``job`` on the least-busy actor, relaying what it streams back."""
        i = min(range(len(self._load)), key=self._load.__getitem__)
        self._load[i] += 1
        try:
            refs = self._actors[i].grade.remote(job, stored)
            async for ref in refs:
                try:
                    event = await ref
                except Exception as e:  # the actor died, or Ray lost it
                    raise RunError(
                        f"Ray actor {i} failed grading item {job.key!r}: {e}; what was "
                        "committed stays in the run store (continue with --resume)"
                    ) from None
                yield event
        finally:
            self._load[i] -= 1

    def close(self) -> None:
        """Stop the actors."""
        import ray

        for a in self._actors:
            ray.kill(a)
        self._actors = []

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def evaluate_on_ray(
    dataset: Any,
    spec: GraderSpec,
    *,
    actors: int | None = None,
    address: str | None = None,
    num_cpus: float = 1,
    run_dir: str | Path | None = None,
    **options: Any,
) -> Any:
    """:func:`rubricjudge.evaluate_sync` with Ray actors grading; returns its ``RunResult``.

    ``options`` are ``evaluate``'s (``resume``, ``force``, ``concurrency`` per actor,
    ``max_items``, ``progress`` ...). The run directory is written by this process only.
    """
    with RayExecutor(spec, actors=actors, address=address, num_cpus=num_cpus) as executor:
        return evaluate_sync(dataset, spec.build(), run_dir=run_dir, executor=executor, **options)
