"""A dataset to label, a run of it with known confidences, and the label server as a process.

``LabelServer`` runs ``rubricjudge label`` in a child process on a free port (the
URL it prints), so a test can SIGKILL it at any moment and start it again.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from rubricjudge import Criterion, CriterionOption, Rubric, RubricDataset
from rubricjudge._graders._criterion import CriterionGrader
from rubricjudge._judges._base import JudgeRequest, JudgeResponse
from rubricjudge._judges._fake import FakeJudge, fake_reply_for_schema
from rubricjudge._runs._evaluate import evaluate_sync
from tests.support.report_runs import HOSTILE

# the judge's confidence on item N (others: 0.97); the least sure first: 7, 3, 10
UNSURE = {7: 0.51, 3: 0.56, 10: 0.62, 5: 0.7}


def rubric() -> Rubric:
    """Two binary criteria, a penalty and a three-option scale."""
    return Rubric(
        [
            Criterion(name="cause", weight=2, requirement="Names Rayleigh scattering as the cause"),
            Criterion(name="brief", weight=1, requirement="Answers in <b>two</b> sentences"),
            Criterion(name="error", weight=-2, requirement="Contains a factual error"),
            Criterion(
                name="clarity",
                weight=1,
                requirement="How clear is the answer?",
                options=[
                    CriterionOption(label="poor", value=0.0),
                    CriterionOption(label="fair", value=0.5),
                    CriterionOption(label="great", value=1.0),
                ],
            ),
        ]
    )


def write_dataset(path: Path, n: int = 12) -> RubricDataset:
    """``n`` unlabelled items; item-000's answer and question are hostile HTML."""
    ds = RubricDataset(prompt="Why is the sky blue?", rubric=rubric())
    for i in range(n):
        text = HOSTILE if i == 0 else f"answer number {i}: the air scatters blue light"
        query = HOSTILE if i == 0 else None
        ds.add_item(submission=text, id=f"item-{i:03d}", query=query, metadata={"src": "t"})
    ds.to_file(path)
    return ds


def _judge() -> FakeJudge:
    def reply(req: JudgeRequest) -> Any:
        data = fake_reply_for_schema(req.schema)
        probs = None
        if req.decision is not None:
            m = re.search(r"answer number (\d+)", req.user)
            sure = UNSURE.get(int(m.group(1)), 0.97) if m else 0.97
            values = [str(v) for v in req.decision.values]
            rest = (1 - sure) / max(len(values) - 1, 1)
            probs = {v: (sure if k == 0 else rest) for k, v in enumerate(values)}
            data[req.decision.key] = req.decision.values[0]
        return JudgeResponse(data=data, raw_text=json.dumps(data), probabilities=probs)

    return FakeJudge(default=reply, name="scripted")


def grade_run(dataset_path: Path, run_dir: Path) -> Path:
    """Grade the dataset at ``dataset_path`` into ``run_dir`` with confidences from UNSURE."""
    grader = CriterionGrader(_judge(), verdict_method="verdict-only")
    dataset = RubricDataset.from_file(dataset_path)
    # in a thread of its own: Playwright's sync API owns this thread's event loop
    with ThreadPoolExecutor(1) as pool:
        pool.submit(evaluate_sync, dataset, grader, run_dir=run_dir).result()
    return run_dir


class LabelServer:
    """``rubricjudge label DATASET ...`` in a child process."""

    def __init__(self, dataset: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.cmd = [
            sys.executable, "-m", "rubricjudge._cli.main", "label", str(dataset),
            "--port", "0", *args,
        ]  # fmt: skip
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> LabelServer:
        self.proc = subprocess.Popen(
            self.cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://"):
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise AssertionError(f"label did not start: {self.url!r} {err}")
        return self

    def client(self, **kw: Any) -> httpx.Client:
        return httpx.Client(**{"base_url": self.url, "timeout": 30, **kw})

    def kill(self) -> None:
        """SIGKILL: no cleanup of any kind runs in the server."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        if self.proc is not None:
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()

    def __enter__(self) -> LabelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()


def write_conversation_dataset(path: Path) -> None:
    """One item whose answer is a conversation with a tool call; every text is hostile HTML."""
    data = {
        "prompt": "Book a flight",
        "rubric": rubric().to_dict(),
        "items": [
            {
                "id": "conv-0",
                "messages": [
                    {"role": "user", "content": HOSTILE},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "search", "arguments": '{"q": "<b>x</b>"}'},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c1", "name": "search", "content": HOSTILE},
                    {"role": "assistant", "content": HOSTILE},
                ],
            }
        ],
    }
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def labels_on_disk(path: Path) -> dict[str, dict[str, Any]]:
    """Item id -> criterion -> ground-truth value, as the dataset loader reads the file."""
    ds = RubricDataset.from_file(path)
    names = [c.name for c in rubric().leaves()]
    out = {}
    for it in ds.items:
        values = [getattr(v, "value", v) for v in it.ground_truth or [None] * len(names)]
        out[str(it.id)] = dict(zip(names, values, strict=True))
    return out
