"""``rubricjudge label`` edits only labels: every other byte of a dataset file is kept.

Driven through ``LabelStore`` (what the server calls), on files written by hand in
each format.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rubricjudge import RubricDataset
from rubricjudge._label._store import LabelStore
from tests.support.label_helpers import rubric

RUBRIC = rubric().to_dict()


def items(n: int) -> list[dict[str, object]]:
    return [
        {"id": f"i{i}", "submission": f"answer {i}\nsecond line é", "metadata": {"n": i}}
        for i in range(n)
    ]


@pytest.mark.parametrize("indent", [None, 2, 4])
def test_json_keeps_every_other_byte(tmp_path: Path, indent: int | None) -> None:
    path = tmp_path / "ds.json"
    data = {"name": "x", "prompt": "Why?", "rubric": RUBRIC, "items": items(5), "metadata": {}}
    path.write_text(json.dumps(data, indent=indent, ensure_ascii=False) + "\n")
    before = path.read_text()
    store = LabelStore(path)
    store.apply("i2", {"cause": "MET", "clarity": "fair"}, "ana")
    after = path.read_text()
    loaded = json.loads(after)
    assert loaded["items"][2]["ground_truth"]["clarity"] == "fair"
    assert loaded["items"][2]["metadata"]["n"] == 2
    start = before.index('"id": "i2"') if indent else before.index('{"id": "i2"')
    end = before.index('"id": "i3"') if indent else before.index('{"id": "i3"')
    head = before[: before.rfind("{", 0, start) + 1] if indent else before[:start]
    assert after.startswith(head)  # everything before the item, byte for byte
    tail = before[before.rfind("{", 0, end) :] if indent else before[end:]
    assert after.endswith(tail)  # and everything after it
    if indent:  # the item is written with the file's indentation, where it stood
        lines = after.splitlines()
        at = next(i for i, line in enumerate(lines) if '"ground_truth"' in line)
        assert lines[at].startswith(" " * (3 * indent) + '"ground_truth"')
    RubricDataset.from_file(path)


def test_jsonl_rewrites_only_the_changed_line(tmp_path: Path) -> None:
    path = tmp_path / "ds.jsonl"
    lines = [json.dumps({"prompt": "Why?", "rubric": RUBRIC})]
    lines += [json.dumps(it, indent=None, separators=(",", ":")) for it in items(4)]
    path.write_text("\r\n".join(lines) + "\r\n")
    LabelStore(path).apply("i1", {"brief": "UNMET"}, "ana")
    after = path.read_bytes().decode().split("\r\n")
    assert [after[k] for k in (0, 1, 3, 4)] == [lines[k] for k in (0, 1, 3, 4)]
    assert json.loads(after[2])["ground_truth"]["brief"] == "UNMET"


def test_jsonl_with_raw_line_separators_in_strings(tmp_path: Path) -> None:
    # JSON keeps U+2028, U+2029 and U+0085 raw in strings; the dataset reader splits
    # lines at "\n" alone, and finding an item's line must agree with it
    path = tmp_path / "ds.jsonl"
    rows = items(3)
    rows[0]["submission"] = "one\u2028two\u2029three\x85four"
    lines = [json.dumps({"prompt": "Why?", "rubric": RUBRIC})]
    lines += [json.dumps(it, ensure_ascii=False) for it in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    LabelStore(path).apply("i1", {"brief": "MET"}, "ana")
    after = path.read_text(encoding="utf-8").split("\n")
    assert after[1] == lines[1] and after[3] == lines[3]
    assert json.loads(after[2])["ground_truth"]["brief"] == "MET"
    assert RubricDataset.from_file(path).items[0].submission == rows[0]["submission"]


def test_yaml_keeps_comments_quoting_and_list_indentation(tmp_path: Path) -> None:
    path = tmp_path / "ds.yaml"
    head = "# labelled by the team\nprompt: 'Why?'  # the question\nrubric:\n"
    rubric_yaml = yaml.safe_dump(RUBRIC, sort_keys=False)  # lists not indented under keys
    body = "".join(
        "  "
        + ("  " + line if line.lstrip().startswith("- ") or line.startswith("  ") else line)
        + "\n"
        for line in rubric_yaml.splitlines()
    )
    tail = (
        "items:\n"
        "  - id: i0\n"
        "    submission: |\n      first answer\n      second line\n"
        "    # a note on this item\n"
        "    metadata: {n: 0}\n"
        "  - id: i1\n"
        '    submission: "yes"\n'
    )
    path.write_text(head + body + tail)
    LabelStore(path).apply("i1", {"clarity": "great", "cause": "met"}, "yes")
    after = path.read_text()
    assert after.startswith("# labelled by the team\nprompt: 'Why?'  # the question\n")
    assert "    # a note on this item\n" in after and "  - id: i0\n" in after
    assert "first answer\n      second line\n" in after
    ds = RubricDataset.from_file(path)  # PyYAML (YAML 1.1) reads it as text, not booleans
    assert ds.items[1].submission == "yes"
    meta = ds.items[1].metadata["human_labels"]
    assert meta["clarity"]["yes"]["label"] == "great" and isinstance(
        meta["cause"]["yes"]["at"], str
    )


def test_a_crlf_tab_indented_json_file_keeps_its_style(tmp_path: Path) -> None:
    path = tmp_path / "ds.json"
    data = {"prompt": "Why?", "rubric": RUBRIC, "items": items(3)}
    text = json.dumps(data, indent="\t", ensure_ascii=False).replace("\n", "\r\n") + "\r\n"
    path.write_bytes(text.encode())
    LabelStore(path).apply("i1", {"cause": "MET"}, "ana")
    after = path.read_bytes().decode()
    assert after.count("\r\n") == after.count("\n")  # every line still ends in CRLF
    lines = after.split("\r\n")
    at = next(i for i, line in enumerate(lines) if '"ground_truth"' in line)
    assert lines[at].startswith("\t\t\t" + '"ground_truth"')  # tabs, at the item's depth
    assert not any(line.startswith(" ") for line in lines)  # no line indented with spaces
    assert json.loads(after)["items"][1]["ground_truth"]["cause"] == "MET"


def test_a_crlf_yaml_file_keeps_its_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "ds.yaml"
    data = {"prompt": "Why?", "rubric": RUBRIC, "items": items(2)}
    path.write_bytes(yaml.safe_dump(data, sort_keys=False).replace("\n", "\r\n").encode())
    LabelStore(path).apply("i0", {"cause": "MET"}, "ana")
    after = path.read_bytes().decode()
    assert after.count("\r\n") == after.count("\n") > 10
    assert RubricDataset.from_file(path).items[0].ground_truth is not None


def test_an_id_spelt_like_an_unnamed_items_name_gets_its_own_labels(tmp_path: Path) -> None:
    # item 0 is named "#1" by its author; item 1 has no id, so it was "#1" too: the page
    # showed one and the labels were written onto the other
    path = tmp_path / "ds.jsonl"
    rows = [
        {"id": "#1", "submission": "answer A"},
        {"submission": "answer B"},
        {"submission": "answer C"},
    ]
    lines = [json.dumps({"prompt": "Why?", "rubric": RUBRIC})] + [json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    store = LabelStore(path)
    file = store.current()
    names = [store.key_at(file, i) for i in range(3)]
    assert names == ["#1", "##1", "#2"]  # a dataset without such an id keeps "#N"
    store.apply("#1", {"cause": "MET"}, "ana")
    store.apply("##1", {"cause": "UNMET"}, "ana")
    truth = [json.loads(line).get("ground_truth") for line in path.read_text().splitlines()[1:]]
    assert truth[0]["cause"] == "MET" and truth[1]["cause"] == "UNMET" and truth[2] is None


def test_stale_temporary_copies_are_removed_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "ds.json"
    path.write_text(json.dumps({"prompt": "Why?", "rubric": RUBRIC, "items": items(2)}))
    stale = [tmp_path / ".ds.json.abcd1234.tmp", tmp_path / ".ds.json.x_9y8z7w.tmp"]
    kept = [
        tmp_path / ".ds.json.short.tmp",  # not tempfile's 8 characters
        tmp_path / ".other.json.abcd1234.tmp",  # another file's
        tmp_path / "ds.json.abcd1234.tmp",  # not hidden: not ours
    ]
    for p in stale + kept:
        p.write_text("partial")
    (tmp_path / ".ds.json.linkxxxx.tmp").symlink_to(kept[0])  # a link is never followed
    store = LabelStore(path)
    assert store.removed_temps == 2
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in kept) and (tmp_path / ".ds.json.linkxxxx.tmp").is_symlink()


@pytest.mark.parametrize(
    "value",
    ["MET", "unmet", "yes", "No", "true", "0", "cannot assess", "fair", "GREAT", "1.0", "x"],
)
def test_the_page_takes_a_label_exactly_when_a_dataset_file_would(value: str) -> None:
    from rubricjudge._datasets._dataset import normalize_ground_truth
    from rubricjudge._errors import LabelError, VerdictError
    from rubricjudge._label._store import check_label

    r = rubric()
    for criterion in (r.criteria[0], r.criteria[3]):
        name = criterion.name or ""
        try:
            labels = {c.name or "": None for c in r.criteria} | {name: value}
            from_file = normalize_ground_truth(r, labels)[r.criteria.index(criterion)]
        except VerdictError:
            with pytest.raises(LabelError):
                check_label(criterion, name, value)
        else:
            assert check_label(criterion, name, value) == from_file
