"""veRL: our reward functions loaded and called by veRL's own code, where veRL is installed.

veRL's reward loop (``NaiveRewardManager.run_single``) and its ``batch`` reward
manager decode real token ids with a real tokenizer (a word-level one built here,
no download) and call our functions as veRL's config tells them to; the judge is
``openai/...`` against the scripted chat server.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import CriterionGrader, FakeJudge
from rubricjudge._errors import ConfigError, RewardError
from rubricjudge.integrations.verl import compute_score, compute_score_async
from rubricjudge.rewards import RewardEngine
from tests.support.chat_server import ChatServer
from tests.support.reward_helpers import fruit_reply, keyword_judge, write_rubric

if not os.environ.get("RUBRICJUDGE_REQUIRE_RL"):
    pytest.importorskip("verl")

# veRL imports a Ray module that Ray itself calls deprecated: theirs to fix, not a failure here
pytestmark = pytest.mark.filterwarnings(
    "ignore:Ray state API is no longer experimental:DeprecationWarning"
)

WORDS = ["[PAD]", "[UNK]", "Name", "fruit", "apple", "banana", "and", "pears", "nothing"]
RESPONSES = ["apple and banana", "apple", "pears", "banana"]
EXPECTED = [1.0, 0.5, 0.0, 0.5]


def _tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece()  # joins words with spaces
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]")


def _data(tokenizer: Any, responses: list[str], data_source: str = "fruit") -> Any:
    """A veRL DataProto as its rollout leaves it: prompt ids, response ids, attention mask."""
    import numpy as np
    import torch
    from verl import DataProto

    prompt = tokenizer("Name fruit")["input_ids"]
    ids = [tokenizer(r)["input_ids"] for r in responses]
    width = max(len(i) for i in ids)
    responses_t = torch.tensor([i + [0] * (width - len(i)) for i in ids])
    mask = torch.tensor([[1] * len(prompt) + [1] * len(i) + [0] * (width - len(i)) for i in ids])
    n = len(responses)
    return DataProto.from_dict(
        tensors={
            "prompts": torch.tensor([prompt] * n),
            "responses": responses_t,
            "attention_mask": mask,
        },
        non_tensors={
            "data_source": np.array([data_source] * n, dtype=object),
            "reward_model": np.array([{"ground_truth": "fruit"} for _ in range(n)], dtype=object),
            "extra_info": np.array([{"question": "Name fruit"} for _ in range(n)], dtype=object),
        },
    )


def _config(name: str, rubric: Path, url: str) -> Any:
    from omegaconf import OmegaConf

    kwargs = {"rubric": str(rubric), "judge": "openai/test", "base_url": url}
    return OmegaConf.create(
        {
            "reward": {
                "custom_reward_function": {
                    "path": "pkg://rubricjudge.integrations.verl",
                    "name": name,
                    "reward_kwargs": kwargs,
                }
            }
        }
    )


def test_verl_reward_loop_awaits_compute_score_async(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager
    from verl.trainer.ppo.reward import get_custom_reward_fn

    chat_server.handler = fruit_reply
    rubric = write_rubric(tmp_path)
    config = _config("compute_score_async", rubric, chat_server.base_url)
    tokenizer = _tokenizer()

    async def run() -> list[Any]:
        fn = get_custom_reward_fn(config)  # veRL's loader: pkg:// path, name, reward_kwargs
        manager = NaiveRewardManager(config, tokenizer, compute_score=fn)
        assert manager.is_async_reward_score
        data = _data(tokenizer, RESPONSES)
        # as veRL's reward loop does: one run_single per rollout, all at once
        return await asyncio.gather(*(manager.run_single(data[i : i + 1]) for i in range(4)))

    results = asyncio.run(run())
    assert [r["reward_score"] for r in results] == EXPECTED
    info = results[0]["reward_extra_info"]
    assert info["rubric_failed"] == 0.0 and info["rubric_judge_calls"] == 2.0
    assert info["rubric_tokens"] == 92.0
    user = chat_server.chat_requests[0].json["messages"][-1]["content"]
    assert "Name fruit" in user  # extra_info["question"] is the request


def test_verl_batch_reward_manager_calls_compute_score_batch(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    from functools import partial

    from verl.trainer.ppo.reward import _call_with_kwargs
    from verl.utils.import_utils import load_extern_object
    from verl.workers.reward_manager.batch import BatchRewardManager

    chat_server.handler = fruit_reply
    rubric = write_rubric(tmp_path)
    raw = load_extern_object("pkg://rubricjudge.integrations.verl", "compute_score_batch")
    kwargs = {"rubric": str(rubric), "judge": "openai/test", "base_url": chat_server.base_url}
    tokenizer = _tokenizer()
    manager = BatchRewardManager(tokenizer, 0, partial(_call_with_kwargs, raw, kwargs))
    data = _data(tokenizer, RESPONSES)
    out = manager(data, return_dict=True)
    tensor = out["reward_tensor"]
    lengths = data.batch["attention_mask"][:, 2:].sum(dim=-1)
    assert [float(tensor[i, lengths[i] - 1]) for i in range(4)] == EXPECTED
    assert float(tensor.sum()) == sum(EXPECTED)  # nothing anywhere but the last token
    assert out["reward_extra_info"]["rubric_failed"] == [0.0] * 4
    assert len(chat_server.chat_requests) == 8


def test_compute_score_signature_and_settings(chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.handler = fruit_reply
    rubric = write_rubric(tmp_path)
    url = chat_server.base_url
    for answer in ("an apple", "a banana"):  # each call its own event loop, one engine
        got = compute_score(
            "fruit", answer, "x", {}, rubric=str(rubric), judge="openai/t", base_url=url
        )
        assert got["score"] == 0.5 and got["rubric_failed"] == 0.0
    by_source = {"fruit": str(rubric)}
    got = compute_score(
        "fruit", "banana", None, None, rubric=by_source, judge="openai/t", base_url=url
    )
    assert got["score"] == 0.5
    with pytest.raises(ConfigError, match="no rubric for data source 'gsm8k'"):
        compute_score("gsm8k", "x", None, None, rubric=by_source, judge="openai/t", base_url=url)
    with pytest.raises(
        ConfigError, match="unknown reward_kwargs key 'rubrik'; did you mean 'rubric'"
    ):
        compute_score("fruit", "x", None, None, rubrik=str(rubric))
    with pytest.raises(ConfigError, match="needs a number for every rollout"):
        compute_score("fruit", "x", None, None, rubric=str(rubric), on_failure="skip")
    with pytest.raises(ConfigError, match="no rubric"):
        asyncio.run(compute_score_async("fruit", "x", None, None))


def test_engine_failure_policy_never_a_silent_zero(tmp_path: Path) -> None:
    rubric = write_rubric(tmp_path)
    grader = CriterionGrader(judge=FakeJudge(default=keyword_judge))
    strict = RewardEngine(rubric, grader)
    with pytest.raises(RewardError, match="could not be scored.*scripted outage"):
        asyncio.run(strict.score("FAIL"))
    with pytest.raises(RewardError, match="1 of 2 rollouts"):
        asyncio.run(strict.score_batch(["apple", "FAIL"]))
    neutral = RewardEngine(rubric, grader, on_failure="neutral", neutral_value=0.3)
    got = asyncio.run(neutral.score_batch(["apple banana", "FAIL", "banana"]))
    assert [g["score"] for g in got] == [1.0, 0.3, 0.5]
    assert [g["rubric_failed"] for g in got] == [0.0, 1.0, 0.0]
    assert got[0].keys() == got[1].keys()  # veRL appends each key's values into one list
    with pytest.raises(RewardError, match="none of the 2"):
        asyncio.run(neutral.score_batch(["FAIL", "FAIL"]))
