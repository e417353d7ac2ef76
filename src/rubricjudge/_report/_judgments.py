"""The judges' raw answers, read from a run directory's store for the item view.

Reports keep the parsed verdict, reason and a short call record; the run store
keeps what each judge actually sent back. The report page shows it under the
criterion it answered (the request's ``key`` tag), or under the item when a call
answered several criteria at once (one-shot and holistic graders).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from .._runs._store import RunStore

__all__ = ["RAW_LIMIT", "raw_calls"]

# one long answer should not make a 10,000-item page unbearably heavy
RAW_LIMIT = 6000


def _clip(text: str) -> str:
    if len(text) <= RAW_LIMIT:
        return text
    return text[:RAW_LIMIT] + f"\n… ({len(text) - RAW_LIMIT} more characters in the run store)"


def _call(judge: str, tags: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    call: dict[str, Any] = {"judge": judge, "raw": _clip(str(response.get("raw_text", "")))}
    if tags.get("evidence"):
        call["purpose"] = "evidence check"
    if response.get("model"):
        call["model"] = response["model"]
    if response.get("reasoning"):
        call["reasoning"] = _clip(str(response["reasoning"]))
    if response.get("probabilities"):
        call["probabilities"] = response["probabilities"]
    if isinstance(response.get("latency_s"), int | float):
        call["latency_s"] = round(float(response["latency_s"]), 4)
    return call


def raw_calls(run_dir: Path) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Every stored judgment of ``run_dir``: item key -> criterion key ("" for none) -> calls."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    store = RunStore(run_dir)
    try:
        for item_key, judge, tags_json, response_json in store.iter_judgments():
            try:
                tags = json.loads(tags_json) if tags_json else {}
                response = json.loads(response_json)
            except ValueError:
                continue  # a damaged row hides one raw answer, never the whole report
            if not isinstance(tags, dict) or not isinstance(response, dict):
                continue
            key = tags.get("key")
            out[item_key][str(key) if key is not None else ""].append(_call(judge, tags, response))
    finally:
        store.close()
    return out
