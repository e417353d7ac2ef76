"""Judge LLM-Rubric dialogues into the agreement cache without scoring anything.

Run: ``python benchmarks/judge_llm_rubric.py --split dev|test [--max N]`` (one process
per split on a 2-core machine). ``_mc_agreement.py`` reads the cache.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RUBRICJUDGE_CACHE_DIR", str(HERE / ".cache"))

from _realdata import judge_dataset, llm_rubric_split  # noqa: E402

from rubricjudge._datasets._bundled import load_example_dataset  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=["dev", "test"], required=True)
    ap.add_argument("--max", type=int)
    args = ap.parse_args()
    data = load_example_dataset("llm_rubric_microsoft")
    idx = [i for i, it in enumerate(data.items) if llm_rubric_split(str(it.id)) == args.split]
    idx = idx[: args.max] if args.max else idx
    judge_dataset(f"llm_rubric_{args.split}", data, idx, label=f"LLM-Rubric {args.split}")


if __name__ == "__main__":
    main()
