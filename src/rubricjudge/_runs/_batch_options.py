"""``--batch-api``'s options, and the checks that a run can be answered by provider batches.

The batch rounds themselves are in ``_batch_run``. Here: :class:`BatchOptions`
(how batches are cut, submitted and polled), :func:`check_batchable` (no cascade,
and every judge has a batch API: :func:`adapter_for`), and
:func:`refuse_open_batches` (a run whose batches are still out resumes only with
``--batch-api``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._errors import ConfigError, UsageError
from .._judges._batch_common import LARGEST_BATCH_BYTES as MAX_BATCH_BYTES
from .._judges._batch_common import LARGEST_BATCH_REQUESTS as MAX_BATCH_REQUESTS
from .._judges._batch_common import BatchAPI
from ._batch_ledger import BatchLedger
from ._bind import bind_judges
from ._store import RunStore

__all__ = ["BatchOptions", "adapter_for", "check_batchable", "refuse_open_batches"]


@dataclass(frozen=True)
class BatchOptions:
    """How ``--batch-api`` cuts, submits and polls batches."""

    poll_s: float = 30.0
    max_requests: int = MAX_BATCH_REQUESTS
    max_bytes: int = MAX_BATCH_BYTES
    max_submissions: int = 3
    max_rounds: int = 8
    resubmit_lost: bool = False
    """Send again the requests of a batch whose create reply was lost and which
    cannot be told apart from other batches (see ``AnthropicBatches.find``)."""

    def __post_init__(self) -> None:
        if not self.poll_s > 0:
            raise ConfigError(f"--batch-poll-s {self.poll_s!r} must be above 0 seconds")
        if not 1 <= self.max_requests <= MAX_BATCH_REQUESTS:
            raise ConfigError(
                f"--batch-size {self.max_requests!r} must be between 1 and {MAX_BATCH_REQUESTS} "
                "(Anthropic's limit of requests per batch; OpenAI's, 50000, applies to "
                "openai/ judges whatever is asked)"
            )
        if not 1 <= self.max_bytes <= MAX_BATCH_BYTES:
            raise ConfigError(f"max_bytes {self.max_bytes!r} must be between 1 and 256 MB")


def check_batchable(grader: object) -> None:
    """Refuse a grader configuration that cannot run on batches.

    Raises:
        ConfigError: the grader escalates to a second judge (``--escalate-to``), or
            holds a judge with no batch API.
    """

    def check(judge: Any) -> Any:
        adapter_for(judge)
        return judge

    if getattr(grader, "escalate_to", None):
        raise ConfigError(
            "--batch-api cannot run a cascade (--escalate-to / escalate_to=): the cascade "
            "asks the stronger judge when the first one's answer is missing, and in batch "
            "mode every first answer is missing until its batch is back. Drop --escalate-to, "
            "or run without --batch-api"
        )
    bind_judges(grader, check)


def refuse_open_batches(store: RunStore) -> None:
    """Refuse to resume without ``--batch-api`` a run whose batches are still out.

    Raises:
        UsageError: the store has batches not yet read (asking again would pay twice).
    """
    rows = BatchLedger(store).open_batches()
    if rows:
        raise UsageError(
            f"run directory {str(store.run_dir)!r} has {len(rows)} provider batch(es) not yet "
            "read; resume it with --batch-api (batch_api=True) so their answers are used "
            "rather than asked for again"
        )


def adapter_for(judge: Any) -> BatchAPI:
    """The batch API of a judge as a run holds it (inside its reliability layer).

    Raises:
        ConfigError: the judge's backend has no batch API rubricjudge speaks.
    """
    # start-up: these load the provider SDKs (anthropic's takes seconds), which only a
    # run with --batch-api needs
    from .._judges._anthropic import AnthropicJudge
    from .._judges._anthropic_batch import AnthropicBatches
    from .._judges._openai import OpenAIJudge
    from .._judges._openai_batch import OpenAIBatches
    from .._judges._reliable import ReliableJudge

    reliable = judge if isinstance(judge, ReliableJudge) else None
    backend = reliable.inner if reliable is not None else judge
    if isinstance(backend, OpenAIJudge):
        return OpenAIBatches(backend, reliable)
    if isinstance(backend, AnthropicJudge):
        return AnthropicBatches(backend, reliable)
    name = getattr(judge, "name", type(judge).__name__)
    raise ConfigError(
        "--batch-api sends judgments through the OpenAI Batch API or Anthropic's Message "
        f"Batches, so every judge must be an 'openai/<model>' or 'anthropic/<model>' judge; "
        f"{name!r} is not one (use --judge openai/... or anthropic/..., or run without "
        "--batch-api)"
    )
