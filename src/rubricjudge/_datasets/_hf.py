"""Hugging Face ``datasets`` as input: a ``Dataset``, a ``save_to_disk`` folder, Parquet, Arrow.

Nothing here imports ``datasets`` until a Hugging Face source is read. A row becomes
an item through a column mapping (:class:`Columns`): the submission, and optionally
the id, the query, a reference answer and one label column per leaf criterion
(``KEY=COLUMN``, or columns in the rubric's leaf order). A column the dataset lacks
is a :class:`~rubricjudge.ConfigError` naming the dataset, the column, the flag or
argument that asked for it, and the columns it has.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import ConfigError, DatasetError, VerdictError
from .._model._rubric import Rubric
from ._io import RubricDataset

__all__ = [
    "HF_PREFIX",
    "Columns",
    "from_hf",
    "is_hf_source",
    "iter_hf_rows",
    "load_hf",
    "parse_label_columns",
]

HF_PREFIX = "hf:"
_SUFFIXES = (".parquet", ".arrow")
_SAVED = ("dataset_info.json", "state.json", "dataset_dict.json")


@dataclass(frozen=True)
class Columns:
    """Which column holds what; ``flags`` names each field as the caller's user knows it."""

    submission: str = "submission"
    id: str | None = None
    query: str | None = None
    reference: str | None = None
    labels: Sequence[str] | Mapping[str, str] | None = None
    flags: Mapping[str, str] = field(default_factory=dict)

    def flag(self, name: str) -> str:
        """How the user named the column setting ``name`` (``--id-column``, ``id_column=``)."""
        return self.flags.get(name, f"{name}_column=")


def is_hf_source(spec: str) -> bool:
    """Whether ``spec`` names a Hugging Face dataset: ``hf:NAME``, Parquet, Arrow or a saved one."""
    if spec.startswith(HF_PREFIX):
        return True
    path = Path(spec)
    if path.suffix.lower() in _SUFFIXES:
        return True
    return path.is_dir() and any((path / name).is_file() for name in _SAVED)


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise ConfigError(
            "reading a Hugging Face dataset needs the datasets package: "
            "pip install 'rubricjudge[hf]'"
        ) from None
    return datasets


def load_hf(source: Any, *, split: str | None = None) -> tuple[Any, str]:
    """A ``datasets.Dataset`` and a name for messages, from a dataset, a path or ``hf:NAME``.

    A ``DatasetDict`` (a saved one, or a hub dataset without ``split``) needs
    ``split`` unless it holds one split.

    Raises:
        ConfigError: no such file, not a dataset, or a split that is not there.
    """
    hf = _datasets()
    if isinstance(source, hf.Dataset | hf.DatasetDict):
        return _one_split(source, split, "the dataset"), "the dataset"
    spec = str(source)
    if spec.startswith(HF_PREFIX):
        name = spec[len(HF_PREFIX) :]
        try:
            loaded = hf.load_dataset(name, split=split)
        except Exception as e:  # the hub's errors: not found, offline, gated ...
            raise ConfigError(f"could not load {spec!r} from the Hugging Face hub: {e}") from None
        return _one_split(loaded, split, spec), spec
    path = Path(spec)
    if not path.exists():
        raise ConfigError(f"dataset {spec!r} not found")
    try:
        if path.is_dir():
            loaded = hf.load_from_disk(str(path))
        elif path.suffix.lower() == ".parquet":
            loaded = hf.Dataset.from_parquet(str(path), keep_in_memory=True)
        else:
            loaded = hf.Dataset.from_file(str(path))
    except Exception as e:  # pyarrow's and datasets' own errors about a bad file
        raise ConfigError(
            f"{spec}: not a Hugging Face dataset ({type(e).__name__}: {e}); give a folder "
            "written by save_to_disk, a .parquet file or an .arrow file"
        ) from None
    return _one_split(loaded, split, spec), spec


def _one_split(loaded: Any, split: str | None, name: str) -> Any:
    hf = _datasets()
    if isinstance(loaded, hf.Dataset):
        if split is not None and loaded.split is not None and str(loaded.split) != split:
            raise ConfigError(f"{name} is the {loaded.split!s} split, not {split!r}")
        return loaded
    splits = list(loaded)
    if split is None:
        if len(splits) == 1:
            return loaded[splits[0]]
        raise ConfigError(
            f"{name} has the splits {', '.join(splits)}; choose one with --split (split=)"
        )
    if split not in loaded:
        raise ConfigError(f"{name} has no split {split!r}; it has {', '.join(splits)}")
    return loaded[split]


def parse_label_columns(text: str) -> list[str] | dict[str, str]:
    """``--label-columns``: ``COL,COL`` (leaf order) or ``KEY=COL,KEY=COL``.

    Raises:
        ConfigError: empty, or the two forms mixed.
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise ConfigError("--label-columns is empty; give COLUMN,... or CRITERION=COLUMN,...")
    named = ["=" in p for p in parts]
    if all(named):
        return {k.strip(): v.strip() for k, v in (p.split("=", 1) for p in parts)}
    if any(named):
        raise ConfigError(
            f"--label-columns {text!r} mixes CRITERION=COLUMN with bare columns; use one form"
        )
    return parts


def _check_columns(ds: Any, name: str, columns: Columns, rubric: Rubric | None) -> dict[str, str]:
    """The label columns by leaf key; every named column checked against the dataset."""
    have = list(ds.column_names)

    def need(column: str, what: str) -> None:
        if column not in have:
            raise ConfigError(
                f"{name} has no column {column!r} ({what}); its columns are: {', '.join(have)}"
            )

    need(columns.submission, columns.flag("submission"))
    for attr in ("id", "query", "reference"):
        value = getattr(columns, attr)
        if value is not None:
            need(value, columns.flag(attr))
    labels: dict[str, str] = {}
    if columns.labels is None:
        return labels
    if rubric is None:
        raise ConfigError("label columns need a rubric (their criteria)")
    leaves = _leaf_keys(rubric)
    if isinstance(columns.labels, Mapping):
        for key, column in columns.labels.items():
            if key not in leaves:
                raise ConfigError(
                    f"{columns.flag('labels')} names criterion {key!r}, which the rubric does "
                    f"not have; its criteria are: {', '.join(leaves)}"
                )
            labels[key] = column
    else:
        given = list(columns.labels)
        if len(given) != len(leaves):
            raise ConfigError(
                f"{columns.flag('labels')} gives {len(given)} columns for the rubric's "
                f"{len(leaves)} criteria ({', '.join(leaves)}); give one per criterion in that "
                "order, or CRITERION=COLUMN pairs"
            )
        labels = dict(zip(leaves, given, strict=True))
    for column in labels.values():
        need(column, columns.flag("labels"))
    return labels


def _leaf_keys(rubric: Rubric) -> list[str]:
    return [c.key or c.name or str(n) for n, c in enumerate(rubric.leaves())]


def _text(value: Any, name: str, row: int, column: str) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        raise ConfigError(f"{name} row {row}: column {column!r} is empty (null)")
    if isinstance(value, list | dict):  # chat messages stay structured; other values as text
        raise ConfigError(
            f"{name} row {row}: column {column!r} holds a {type(value).__name__}, not text; "
            "point the column mapping at a text column"
        )
    return str(value)


def iter_hf_rows(
    ds: Any, name: str, columns: Columns
) -> Iterator[tuple[int, str, str, str | None, str | None]]:
    """``(row, id, submission, query, reference)`` of each row (ids default to the row number).

    Raises:
        ConfigError: a missing column, or a row whose cell is not text.
    """
    _check_columns(ds, name, columns, None)
    for n, row in enumerate(ds):
        sub = _text(row[columns.submission], name, n, columns.submission)
        ident = str(row[columns.id]) if columns.id is not None else str(n)
        query = _opt(row, columns.query, name, n)
        reference = _opt(row, columns.reference, name, n)
        yield n, ident, sub, query, reference


def _opt(row: Mapping[str, Any], column: str | None, name: str, n: int) -> str | None:
    if column is None or row[column] is None:
        return None
    return _text(row[column], name, n, column)


def from_hf(
    source: Any,
    rubric: Rubric | str | Path,
    *,
    submission_column: str = "submission",
    id_column: str | None = None,
    query_column: str | None = None,
    reference_column: str | None = None,
    label_columns: Sequence[str] | Mapping[str, str] | None = None,
    split: str | None = None,
    prompt: str = "",
    flags: Mapping[str, str] | None = None,
) -> RubricDataset:
    """A :class:`RubricDataset` from a Hugging Face dataset (object, folder, file or ``hf:NAME``).

    Args:
        source: a ``datasets.Dataset`` or ``DatasetDict``; a folder written by
            ``save_to_disk``; a ``.parquet`` or ``.arrow`` file; or ``hf:NAME`` (the hub).
        rubric: the rubric every row is graded against (a rubric or a rubric file).
        submission_column: the column of the text to grade.
        id_column: the column of each row's id (default: the row number).
        query_column: the column of the request each submission answers.
        reference_column: the column of a reference answer shown to the judge.
        label_columns: human labels: one column per leaf criterion, in the rubric's
            order, or a mapping from criterion key to column. Values as
            ``Rubric.compute_score`` takes them (``MET``/``UNMET``, true/false, 1/0,
            option labels); null leaves that criterion unlabelled on the row.
        split: the split of a ``DatasetDict`` (needed when it holds several).
        prompt: the dataset's prompt (each row's query, when given, wins).
        flags: how the caller names the column settings, for messages.

    Raises:
        ConfigError: a missing column, file or split, naming what to change.
        DatasetError: a label that does not fit its criterion (with the row).
    """
    if not isinstance(rubric, Rubric):
        rubric = Rubric.from_file(rubric)
    ds, name = load_hf(source, split=split)
    columns = Columns(
        submission=submission_column,
        id=id_column,
        query=query_column,
        reference=reference_column,
        labels=label_columns,
        flags=dict(flags or {}),
    )
    labels = _check_columns(ds, name, columns, rubric)
    keys = _leaf_keys(rubric)
    out = RubricDataset(prompt=prompt, rubric=rubric, name=getattr(ds.info, "dataset_name", None))
    for n, row in enumerate(ds):
        sub = _text(row[columns.submission], name, n, columns.submission)
        truth: list[Any] | None = None
        if labels:  # in leaf order; criteria without a column are unlabelled on every row
            truth = [row[labels[k]] if k in labels else None for k in keys]
        try:
            out.add_item(
                sub,
                ground_truth=truth,
                id=str(row[id_column]) if id_column is not None else str(n),
                query=_opt(row, query_column, name, n),
                reference_submission=_opt(row, reference_column, name, n),
            )
        except (VerdictError, DatasetError) as e:
            raise ConfigError(f"{name} row {n}: {e}") from None
    return out
