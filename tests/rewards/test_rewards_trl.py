"""TRL: RubricReward and GroupRelativeReward inside a real GRPO step, and group normalisation.

The GRPO step trains a one-layer GPT-2 made here (random weights, a word-level
tokenizer: nothing downloaded) on CPU for one step; its completions are graded by
our rewards with a FakeJudge, and TRL logs what they returned.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import CriterionGrader, FakeJudge
from rubricjudge._errors import ConfigError
from rubricjudge.rewards import GroupRelativeReward, RubricReward, group_relative
from tests.support.reward_helpers import keyword_judge, write_rubric

WORDS = ["[PAD]", "[UNK]", "[EOS]", "Name", "fruit", "apple", "banana", "and", "pears"]


def _reward(path: Path, **kw: Any) -> RubricReward:
    return RubricReward(str(path), CriterionGrader(judge=FakeJudge(default=keyword_judge)), **kw)


def test_one_grpo_step_with_rubric_rewards(tmp_path: Path) -> None:
    if not os.environ.get("RUBRICJUDGE_REQUIRE_RL"):
        pytest.importorskip("trl")
    from datasets import Dataset
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast
    from trl import GRPOConfig, GRPOTrainer

    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", eos_token="[EOS]"
    )
    config = GPT2Config(
        vocab_size=len(WORDS), n_positions=32, n_embd=16, n_layer=1, n_head=2,
        bos_token_id=2, eos_token_id=2, pad_token_id=0,
    )  # fmt: skip
    rubric = write_rubric(tmp_path)
    plain = _reward(rubric, failure_policy="skip")
    group = GroupRelativeReward(_reward(rubric, failure_policy="skip"))
    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=6,
        max_steps=1,
        report_to=[],
        use_cpu=True,
        logging_steps=1,
        save_strategy="no",
    )
    trainer = GRPOTrainer(
        model=GPT2LMHeadModel(config),
        reward_funcs=[plain, group],
        args=args,
        train_dataset=Dataset.from_dict({"prompt": ["Name fruit"] * 8}),
        processing_class=tokenizer,
    )
    trainer.train()
    logged = trainer.state.log_history[0]
    assert plain.stats.calls == 1 and plain.stats.completions == 4 and plain.stats.failures == 0
    assert 0.0 <= logged["rewards/rubric_reward_fruit/mean"] <= 1.0
    assert logged["rewards/rubric_reward_fruit_group/mean"] == pytest.approx(0.0, abs=1e-6)
    assert logged["rubric_reward_fruit/failed"] == 0.0  # through TRL's log_metric


def test_group_relative_values() -> None:
    got = group_relative([1.0, 0.0, 0.5, 0.5, 0.2, None], ["a", "a", "b", "b", "c", "c"])
    assert got == [1.0, -1.0, 0.0, 0.0, 0.0, None]  # equal group: 0; one scored: 0; None stays
    assert group_relative([1.0, 0.0, 0.25], ["a"] * 3, scale=False) == pytest.approx(
        [2 / 3 - 1 / 12, -(1 / 3 + 1 / 12), 0.25 - 5 / 12]
    )
    with pytest.raises(ConfigError, match="3 values for 2 group keys"):
        group_relative([1.0, 2.0, 3.0], ["a", "b"])


def test_group_reward_groups_by_prompt_and_keeps_failures_none(tmp_path: Path) -> None:
    reward = GroupRelativeReward(_reward(write_rubric(tmp_path), failure_policy="skip"))
    prompts = ["p1", "p1", "p1", [{"role": "user", "content": "p2"}], "p2"]
    completions = ["apple banana", "apple", "FAIL", "banana", "pears"]
    out = reward(prompts=prompts, completions=completions)
    assert out == [1.0, -1.0, None, 1.0, -1.0]
    assert reward.stats.failures == 1 and reward.__name__ == "rubric_reward_fruit_group"


def test_group_reward_refuses_rewards_that_would_bias_groups(tmp_path: Path) -> None:
    rubric = write_rubric(tmp_path)
    with pytest.raises(ConfigError, match="failures stay None"):
        GroupRelativeReward(_reward(rubric, failure_policy="value"))
    with pytest.raises(ConfigError, match="not 'zscore'"):
        GroupRelativeReward(_reward(rubric, normalization="zscore"))


def test_no_trainer_is_loaded_by_rubricjudge_or_its_cli() -> None:
    import subprocess
    import sys

    code = (
        "import sys, rubricjudge, rubricjudge.rewards, rubricjudge.integrations.verl\n"
        "import rubricjudge._cli.main\n"
        "heavy = {'torch', 'trl', 'verl', 'verifiers', 'transformers', 'openrlhf', 'ray'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
