"""``rubricjudge label``'s JSON API against the real server (a child process on 127.0.0.1).

What the page relies on: the item shape of ``GET /api/next``, ``POST /api/labels``
answered only once durable, clear 4xx answers for bad requests, the order the judge
asks for, progress toward a calibration, two labellers on one file, and the guards
that keep other web sites and other machines out.
"""

from __future__ import annotations

import json
import os
import random
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from rubricjudge import RubricDataset
from rubricjudge._calibration._train import MIN_PER_LABEL, MIN_POOLED
from rubricjudge._cli.main import main
from tests.support.label_helpers import (
    UNSURE,
    LabelServer,
    grade_run,
    labels_on_disk,
    rubric,
    write_conversation_dataset,
    write_dataset,
)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "ds.json"
    write_dataset(path)
    return path


@pytest.fixture
def graded(dataset: Path, tmp_path: Path) -> tuple[Path, Path]:
    return dataset, grade_run(dataset, tmp_path / "run")


def answer_all(item: dict[str, Any], value: str = "MET") -> dict[str, str]:
    return {c["name"]: (c["options"][0] if c["options"] else value) for c in item["criteria"]}


def test_next_has_the_documented_shape_and_labels_land_in_the_file(dataset: Path) -> None:
    with LabelServer(dataset, "--labeller", "ana") as server, server.client() as http:
        item = http.get("/api/next").json()
        assert {"item_id", "query", "submission", "criteria", "labelled", "total"} <= set(item)
        assert item["labelled"] == 0 and item["total"] == 12
        assert [c["name"] for c in item["criteria"]] == ["cause", "brief", "error", "clarity"]
        assert item["criteria"][3]["options"] == ["poor", "fair", "great"]
        assert item["criteria"][0]["options"] is None
        assert item["judge"] is None  # no run, and blind anyway
        r = http.post("/api/labels", json={"item_id": item["item_id"], "labels": {"cause": "met"}})
        assert r.status_code == 200, r.text
        assert r.json()["saved"] == {"cause": "MET"}
        assert labels_on_disk(dataset)[item["item_id"]]["cause"] == "MET"  # on disk already
        raw = json.loads(dataset.read_text())
        it = next(i for i in raw["items"] if i["id"] == item["item_id"])
        assert it["ground_truth"] == {"cause": "MET", "brief": None, "error": None, "clarity": None}
        rec = it["metadata"]["human_labels"]["cause"]["ana"]
        assert rec["label"] == "MET" and rec["at"].endswith("Z")
        assert it["metadata"]["src"] == "t"  # what was there stays
        r = http.post("/api/labels", json={"item_id": item["item_id"], "labels": answer_all(item)})
        assert r.json()["complete"] is True and r.json()["labelled"] == 1
        assert http.get("/api/next").json()["item_id"] != item["item_id"]


BAD = [
    ({"item_id": "nope", "labels": {"cause": "MET"}}, 404, "no item 'nope'"),
    ({"item_id": "item-001", "labels": {"causes": "MET"}}, 422, "no criterion 'causes'"),
    ({"item_id": "item-001", "labels": {"cause": "maybe"}}, 422, "'MET', 'UNMET'"),
    ({"item_id": "item-001", "labels": {"clarity": "MET"}}, 422, "'poor', 'fair', 'great'"),
    ({"item_id": "item-001", "labels": {"cause": 1}}, 422, "schema"),
    ({"item_id": "item-001", "labels": {}}, 422, "schema"),
    ({"item_id": "item-001", "labels": {"cause": "MET"}, "x": 1}, 422, "schema"),
    ({"item_id": "item-001", "labels": {"cause": "M" * 300}}, 422, "over 256"),
]


def test_bad_labels_are_refused_with_a_message(dataset: Path) -> None:
    before = dataset.read_bytes()
    with LabelServer(dataset) as server, server.client() as http:
        for body, status, says in BAD:
            r = http.post("/api/labels", json=body)
            assert (r.status_code, says in r.text) == (status, True), (body, r.text)
    assert dataset.read_bytes() == before


def test_bodies_are_bounded_and_must_be_json(dataset: Path) -> None:
    with LabelServer(dataset) as server, server.client() as http:
        big = http.post(
            "/api/labels",
            content=b"{" + b" " * 70_000 + b"}",
            headers={"content-type": "application/json"},
        )
        assert big.status_code == 413
        form = http.post(
            "/api/labels", content=b"item_id=x", headers={"content-type": "text/plain"}
        )
        assert form.status_code == 415  # a cross-site form cannot post without a preflight
        broken = http.post(
            "/api/labels", content=b"{not json", headers={"content-type": "application/json"}
        )
        assert broken.status_code == 400
        assert http.get("/api/items/nope").status_code == 404


def test_other_sites_and_rebound_names_are_refused_on_loopback(dataset: Path) -> None:
    with LabelServer(dataset) as server, server.client() as http:
        body = {"item_id": "item-001", "labels": {"cause": "MET"}}
        evil = http.post("/api/labels", json=body, headers={"origin": "http://evil.example"})
        assert evil.status_code == 403
        rebound = http.get("/api/next", headers={"host": "evil.example:80"})  # DNS rebinding
        assert rebound.status_code == 403
        assert http.post("/api/labels", json=body).status_code == 200
        # a host name is case-insensitive: LOCALHOST is this server, and so is its origin
        port = server.url.rstrip("/").rsplit(":", 1)[1]
        upper = {"host": f"LOCALHOST:{port}", "origin": f"http://LocalHost:{port}"}
        assert http.get("/api/next", headers=upper).status_code == 200


def test_an_id_with_a_comma_can_be_skipped(tmp_path: Path) -> None:
    path = tmp_path / "ds.json"
    ds = RubricDataset(prompt="Why?", rubric=rubric())
    for name in ("a,b", "c", "a"):  # "a,b" split at its comma would skip "a" instead
        ds.add_item(submission=f"answer {name}", id=name)
    ds.to_file(path)
    with LabelServer(path, "--order", "random") as server, server.client() as http:
        first = http.get("/api/next").json()["item_id"]
        skipped = http.get("/api/next", params=[("skip", first)]).json()["item_id"]
        assert skipped != first
        both = http.get("/api/next", params=[("skip", first), ("skip", skipped)]).json()
        assert both["item_id"] not in (first, skipped)
        assert {first, skipped, both["item_id"]} == {"a,b", "c", "a"}


def test_a_host_reachable_from_elsewhere_needs_a_token(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    monkeypatch.delenv("RUBRICJUDGE_LABEL_TOKEN", raising=False)
    assert main(["label", str(dataset), "--host", "0.0.0.0", "--port", "0"]) == 1
    assert "needs a token" in capsys.readouterr().err
    token = "t0ken-" + "x" * 20
    (tmp_path / "tok").write_text(token)
    with LabelServer(dataset, "--host", "0.0.0.0", "--token-file", str(tmp_path / "tok")) as s:
        url = s.url.replace("0.0.0.0", "127.0.0.1")
        with s.client(base_url=url) as http:
            assert http.get("/").status_code == 200  # the page itself holds no data
            assert http.get("/api/next").status_code == 401
            wrong = http.get("/api/next", headers={"authorization": "Bearer " + "y" * 26})
            assert wrong.status_code == 401
            ok = http.get("/api/next", headers={"authorization": f"Bearer {token}"})
            assert ok.status_code == 200 and ok.json()["item_id"]


def test_uncertain_order_offers_the_least_sure_first(graded: tuple[Path, Path]) -> None:
    dataset, run = graded
    with LabelServer(dataset, "--run-dir", str(run), "--labeller", "ana") as s, s.client() as http:
        seen = []
        for _ in range(8):
            item = http.get("/api/next").json()
            assert item["order"] == "uncertain" and item["judge"] is None  # blind
            seen.append(item["item_id"])
            r = http.post(
                "/api/labels", json={"item_id": item["item_id"], "labels": answer_all(item)}
            )
            judge = r.json()["judge"]  # shown once the item is labelled
            assert judge["cause"]["answer"] == "MET" and judge["cause"]["confidence"] is not None
    least_sure = [f"item-{i:03d}" for i in sorted(UNSURE, key=UNSURE.get)]
    assert seen[0] == least_sure[0]
    # every other item is the next least sure (or already drawn at random before it)
    assert [i for i in seen if i in least_sure] == least_sure


def test_show_judge_reveals_before_labelling(graded: tuple[Path, Path]) -> None:
    dataset, run = graded
    with LabelServer(dataset, "--run-dir", str(run), "--show-judge") as s, s.client() as http:
        item = http.get("/api/next").json()
        assert item["judge"]["cause"]["confidence"] == pytest.approx(UNSURE[7])


def test_progress_counts_what_a_calibration_still_needs(dataset: Path) -> None:
    with LabelServer(dataset, "--order", "random") as s, s.client() as http:
        first = http.get("/api/next").json()["calibration"]
        assert first["needed"] == MIN_POOLED and first["min_each"] == MIN_PER_LABEL
        for _ in range(3):  # 3 items x 2 positive binary criteria, all MET
            item = http.get("/api/next").json()
            http.post("/api/labels", json={"item_id": item["item_id"], "labels": answer_all(item)})
        got = http.get("/api/next").json()["calibration"]
        # 6 MET on positive criteria: 14 more to reach 20, of which at least 5 UNMET
        assert got["group"] == "pooled:positive" and got["counts"] == {"MET": 6}
        assert got["needed"] == MIN_POOLED - 6
        # the penalty's group is short too, and `calibrate` would skip it: the page says so
        assert got["short"] == [{"about": "penalties", "needed": MIN_POOLED - 3}]


def test_two_labellers_at_once_lose_nothing_and_last_write_wins(dataset: Path) -> None:
    """Two server processes on one file, each posting from two threads (two tabs).

    The two tabs of one labeller work on different items (odd and even), so each
    labeller's last label per item and criterion is known; the two labellers overlap.
    """
    sent: dict[str, dict[tuple[str, str], str]] = {"ana": {}, "ben": {}}
    a = LabelServer(dataset, "--labeller", "ana")
    b = LabelServer(dataset, "--labeller", "ben")
    with a, b:

        def tab(server: LabelServer, who: str, parity: int, seed: int) -> None:
            rng = random.Random(seed)
            with server.client() as http:
                for _ in range(15):
                    item_id = f"item-{rng.randrange(6) * 2 + parity:03d}"
                    crit, value = rng.choice(
                        [("cause", "MET"), ("cause", "UNMET"), ("brief", "MET")]
                    )
                    r = http.post("/api/labels", json={"item_id": item_id, "labels": {crit: value}})
                    assert r.status_code == 200, r.text
                    sent[who][(item_id, crit)] = value

        threads = [
            threading.Thread(target=tab, args=(srv, who, parity, seed))
            for seed, (srv, who, parity) in enumerate(
                [(a, "ana", 0), (a, "ana", 1), (b, "ben", 0), (b, "ben", 1)]
            )
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    raw = {it["id"]: it for it in json.loads(dataset.read_text())["items"]}
    for who, latest in sent.items():
        for (item_id, crit), value in latest.items():
            assert raw[item_id]["metadata"]["human_labels"][crit][who]["label"] == value
    for item in raw.values():
        for crit, by in item["metadata"].get("human_labels", {}).items():
            newest = max(by.values(), key=lambda r: r["at"])
            assert item["ground_truth"][crit] == newest["label"]  # the last write counts
    RubricDataset.from_file(dataset)


def test_undo_withdraws_a_label_and_brings_back_an_earlier_one(tmp_path: Path) -> None:
    path = tmp_path / "ds.json"
    write_dataset(path)
    raw = json.loads(path.read_text())
    raw["items"][1]["ground_truth"] = {
        "cause": "UNMET",
        "brief": None,
        "error": None,
        "clarity": None,
    }
    path.write_text(json.dumps(raw))
    with LabelServer(path, "--labeller", "ana") as s, s.client() as http:
        http.post(
            "/api/labels", json={"item_id": "item-001", "labels": {"cause": "MET", "brief": "MET"}}
        )
        assert labels_on_disk(path)["item-001"]["cause"] == "MET"
        http.post(
            "/api/labels", json={"item_id": "item-001", "labels": {"cause": None, "brief": None}}
        )
    on_disk = labels_on_disk(path)["item-001"]
    assert on_disk["cause"] == "UNMET" and on_disk["brief"] is None  # the hand label is back
    meta = json.loads(path.read_text())["items"][1]["metadata"]["human_labels"]
    assert list(meta["cause"]) == ["(earlier)"] and "brief" not in meta


def test_run_of_another_dataset_and_uncertain_without_a_run_are_refused(
    graded: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, run = graded
    other = tmp_path / "other.json"
    write_dataset(other, n=5)
    assert main(["label", str(other), "--run-dir", str(run), "--port", "0"]) == 1
    assert "graded another dataset" in capsys.readouterr().err
    assert main(["label", str(dataset), "--order", "uncertain", "--port", "0"]) == 1
    assert "--order uncertain needs --run-dir" in capsys.readouterr().err
    assert main(["label", "example:llm_rubric_microsoft", "--port", "0"]) == 1
    assert "cannot be labelled in place" in capsys.readouterr().err
    assert main(["label", str(dataset), "--labeller", "a b", "--port", "0"]) == 1
    assert "--labeller 'a b'" in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = str(busy.getsockname()[1])
        assert main(["label", str(dataset), "--port", port]) == 1
    assert "give another --port" in capsys.readouterr().err


def test_a_broken_record_is_named_with_its_path(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "ds.json"
    write_dataset(path)
    raw = json.loads(path.read_text())
    raw["items"][2]["metadata"]["human_labels"] = {"cause": {"ana": "MET"}}
    path.write_text(json.dumps(raw))
    assert main(["label", str(path), "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "items[2].metadata.human_labels.cause.ana" in err and "Traceback" not in err


def test_the_file_keeps_its_mode_and_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    write_dataset(real)
    os.chmod(real, 0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with LabelServer(link) as s, s.client() as http:
        assert (
            http.post(
                "/api/labels", json={"item_id": "item-001", "labels": {"cause": "MET"}}
            ).status_code
            == 200
        )
    assert link.is_symlink() and (real.stat().st_mode & 0o777) == 0o640
    assert labels_on_disk(real)["item-001"]["cause"] == "MET"


def test_sigkill_in_the_middle_of_writes_loses_no_answered_label(tmp_path: Path) -> None:
    """A client posts labels as fast as it can; the server is SIGKILLed mid-stream, thrice."""
    path = tmp_path / "ds.jsonl"
    write_dataset(tmp_path / "seed.json", n=1)
    ds = RubricDataset.from_file(tmp_path / "seed.json")
    for i in range(1, 400):  # a larger file: each write takes a while, so kills land inside
        ds.add_item(submission="answer number 1: " + "words " * 80, id=f"extra-{i:03d}")
    ds.to_file(path)
    answered: dict[tuple[str, str], set[str | None]] = {}  # what the file may hold per label
    rng = random.Random(7)
    for round_ in range(3):
        server = LabelServer(path, "--labeller", f"l{round_}").start()
        stop = threading.Event()

        def post_until_killed(server: LabelServer = server, stop: threading.Event = stop) -> None:
            with server.client() as http:
                while not stop.is_set():
                    item_id = f"extra-{rng.randrange(1, 400):03d}"
                    value = rng.choice(["MET", "UNMET"])
                    key = (item_id, "cause")
                    try:
                        r = http.post(
                            "/api/labels", json={"item_id": item_id, "labels": {"cause": value}}
                        )
                    except Exception:  # killed mid-request: this one may or may not be on disk
                        answered.setdefault(key, {None}).add(value)  # (None: never labelled)
                        return
                    assert r.status_code == 200, r.text
                    answered[key] = {value}  # answered: it is the one on disk now

        worker = threading.Thread(target=post_until_killed)
        worker.start()
        threading.Event().wait(1.5 + rng.random())
        server.kill()
        stop.set()
        worker.join()
        on_disk = labels_on_disk(path)  # loads whole: never half-written
        for (item_id, crit), values in answered.items():
            assert on_disk[item_id][crit] in values, (round_, item_id)
    assert sum(len(v) == 1 for v in answered.values()) > 10


def test_a_conversation_is_sent_as_numbered_messages(tmp_path: Path) -> None:
    dataset = tmp_path / "conv.json"
    write_conversation_dataset(dataset)
    with LabelServer(dataset, "--labeller", "ana") as server, server.client() as http:
        r = http.get("/api/next")
        assert r.status_code == 200, r.text
        sub = r.json()["submission"]
        assert sub["kind"] == "conversation"
        assert [m["role"] for m in sub["messages"]] == ["user", "assistant", "tool", "assistant"]
        assert [m["n"] for m in sub["messages"]] == [1, 2, 3, 4]
        assert sub["messages"][1]["calls"][0]["name"] == "search"
        assert sub["messages"][2]["result_of"] == 1
        body = {"item_id": "conv-0", "labels": {"cause": "MET"}}
        assert http.post("/api/labels", json=body).status_code == 200
    assert labels_on_disk(dataset)["conv-0"]["cause"] == "MET"
    assert "messages" in json.loads(dataset.read_text())["items"][0]  # kept as it was
