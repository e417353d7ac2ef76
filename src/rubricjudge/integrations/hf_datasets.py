"""Hugging Face ``datasets`` as rubricjudge datasets (``pip install 'rubricjudge[hf]'``).

:func:`from_hf` turns a ``datasets.Dataset`` (or ``DatasetDict`` and a split), a
folder written by ``save_to_disk``, a ``.parquet`` or ``.arrow`` file, or
``hf:NAME`` from the hub into a :class:`~rubricjudge.RubricDataset` through a column
mapping, ready for ``evaluate``, ``calibrate`` and ``metrics``::

    from datasets import load_from_disk
    from rubricjudge.integrations.hf_datasets import from_hf

    ds = from_hf(load_from_disk("answers"), "rubric.yaml", submission_column="answer",
                 id_column="qid", label_columns={"apples": "human_apples"})

The CLI reads the same sources as DATASET (``evaluate``, ``calibrate``) or INPUT
(``grade``) with ``--rubric``, ``--submission-column``, ``--id-column``,
``--query-column``, ``--reference-column``, ``--label-columns`` and ``--split``.
"""

from __future__ import annotations

from .._datasets._hf import from_hf, is_hf_source

__all__ = ["from_hf", "is_hf_source"]
