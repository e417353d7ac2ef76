"""What reusing llama.cpp's KV cache saves the ``local`` judge.

One submission is judged on several criteria with the graders' real per-criterion
prompts (system prompt and submission first, the criterion last), twice in the
same process: with prefix reuse (the default) and with the KV cache cleared before
every call (``extra_params={"kv_reuse": False}``). Greedy decoding gives the same
replies both ways, so the difference is prompt evaluation. Prints the prompt
tokens evaluated, llama.cpp's own prompt-eval time, wall time per judgment, and
the ratios.

    python benchmarks/local_kv_cache.py [--criteria 4] [--threads N] [--words 350]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass
from typing import Any

from rubricjudge import JudgeError
from rubricjudge._graders._criterion_prompts import criterion_prompt, criterion_schema
from rubricjudge._graders._inputs import Submission
from rubricjudge._graders._prompts import SYSTEM_CRITERION, build_prefix
from rubricjudge._judges import _local_load
from rubricjudge._judges._base import JudgeConfig, JudgeRequest
from rubricjudge._judges._local import LocalJudge
from rubricjudge._judges._local_worker import shared_scheduler
from rubricjudge._model._rubric import Criterion

ANSWER = (
    "Photosynthesis is the process by which green plants, algae and some bacteria turn light "
    "into chemical energy. In the chloroplasts, chlorophyll absorbs mostly red and blue light. "
    "The light-dependent reactions split water, release oxygen and make ATP and NADPH. The "
    "Calvin cycle then uses that ATP and NADPH to fix carbon dioxide into sugars such as "
    "glucose. The overall equation is 6 CO2 + 6 H2O + light -> C6H12O6 + 6 O2. "
)
CRITERIA = [
    "States that oxygen is released.",
    "Names chlorophyll as the pigment that absorbs light.",
    "Gives the overall chemical equation.",
    "Explains that the process happens in the mitochondria.",
    "Mentions the Calvin cycle.",
    "Says that photosynthesis needs light.",
    "Mentions that animals photosynthesise.",
    "Names glucose as a product.",
]


@dataclass
class Run:
    prompt_tokens: int = 0
    reused: int = 0
    p_eval_ms: float = 0.0
    wall_s: float = 0.0
    calls: int = 0


def requests(n_criteria: int, words: int) -> list[JudgeRequest]:
    text = ANSWER
    while len(text.split()) < words:
        text += ANSWER
    prefix = build_prefix(Submission(output=text), query="Explain photosynthesis.")
    out = []
    for req in CRITERIA[:n_criteria]:
        crit = Criterion(description=req)
        out.append(
            JudgeRequest(
                system=SYSTEM_CRITERION,
                user=prefix.text + criterion_prompt(crit),
                schema=criterion_schema(crit),
                shared_prefix_chars=len(prefix.text),
            )
        )
    return out


def perf(judge: LocalJudge) -> Any:
    import llama_cpp

    return llama_cpp.llama_perf_context(judge._model().llm.ctx)


async def measure(reuse: bool, reqs: list[JudgeRequest], threads: int) -> tuple[Run, list[str]]:
    cfg = JudgeConfig(extra_params={"kv_reuse": reuse, "n_threads": threads}, max_tokens=96)
    judge = LocalJudge("", cfg)
    run, verdicts = Run(), []
    for req in reqs:
        before = await shared_scheduler().run(lambda: perf(judge))
        start = time.perf_counter()
        resp = await judge.judge(req)
        run.wall_s += time.perf_counter() - start
        after = await shared_scheduler().run(lambda: perf(judge))
        assert resp.usage is not None
        run.prompt_tokens += resp.usage.prompt_tokens
        run.reused += resp.usage.cache_read_input_tokens
        run.p_eval_ms += after.t_p_eval_ms - before.t_p_eval_ms
        run.calls += 1
        verdicts.append(str(resp.data.get("verdict")))
    return run, verdicts


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--criteria", type=int, default=4)
    ap.add_argument("--words", type=int, default=350)
    ap.add_argument("--threads", type=int, default=_local_load.default_threads())
    args = ap.parse_args()
    reqs = requests(args.criteria, args.words)

    t = time.perf_counter()
    warm = LocalJudge("", JudgeConfig(extra_params={"n_threads": args.threads}, max_tokens=8))
    try:  # load the model (and assemble it on a first run)
        await warm.judge(reqs[0])
    except JudgeError:
        pass  # cut off at 8 tokens, as intended
    print(f"model load + first call: {time.perf_counter() - t:.1f}s, threads={args.threads}")

    cold, v_cold = await measure(False, reqs, args.threads)
    warm_run, v_warm = await measure(True, reqs, args.threads)
    # the first warm call follows the last cold one (a different criterion): it reuses
    # the shared prefix too, as every call after the first about one submission would

    for label, r in (("no reuse", cold), ("KV reuse", warm_run)):
        evaluated = r.prompt_tokens - r.reused
        print(
            f"{label:9s} calls={r.calls} prompt_tokens={r.prompt_tokens} evaluated={evaluated} "
            f"prompt_eval={r.p_eval_ms / 1000:.2f}s wall={r.wall_s:.2f}s "
            f"per_judgment={r.wall_s / r.calls:.2f}s"
        )
    print(f"verdicts same both ways: {v_cold == v_warm} ({', '.join(v_warm)})")
    ev_cold = cold.prompt_tokens - cold.reused
    ev_warm = warm_run.prompt_tokens - warm_run.reused
    print(f"prompt tokens evaluated, reuse/no-reuse: {ev_warm / ev_cold:.3f}")
    print(f"prompt-eval time,        reuse/no-reuse: {warm_run.p_eval_ms / cold.p_eval_ms:.3f}")
    print(f"wall time per judgment,  reuse/no-reuse: {warm_run.wall_s / cold.wall_s:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
