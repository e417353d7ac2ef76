"""``rubricjudge label``: a local page to label a dataset's answers, in the order that helps most.

Exit codes: 130 stopped with Ctrl-C (every label answered as saved is in the
dataset); 1 a usage or input error (a dataset that does not load, a run of another
dataset, ``--order uncertain`` without confidences, a port in use, a non-loopback
``--host`` without a token); 2 bad command-line usage.
"""

from __future__ import annotations

import argparse
import getpass
import re
import sys
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from ._dataset_arg import EXAMPLE_PREFIX

# What a command runs is imported inside the function that runs it: every module of
# _cli loads for `rubricjudge --help`, which must stay light (tests/test_startup.py).

__all__ = ["register", "run"]

DESCRIPTION = """\
Serve a page on which people label DATASET's answers, criterion by criterion, with
the keyboard (y / n / s, digits for options, arrows, u to undo), and print its URL.
Every label is in DATASET (items' ground_truth, and who gave it when in
metadata.human_labels) before the page hears back; stop the server at any moment
and start it again to continue. The judge's answers stay hidden until an item is
labelled, unless --show-judge.

Which item comes next (--order): uncertain (needs --run-dir): what the judge of
that run was least sure of first, spread over criteria and the judge's answers,
every other item at random; the labels a calibration needs. stratified: in turn
from every question and band of the judge's score. random: a fair sample, the one
to measure agreement on.
Default: uncertain with a --run-dir whose judge gave confidences, else stratified.

The page binds 127.0.0.1 (only this machine). Another --host needs a token
(--token-file, or $RUBRICJUDGE_LABEL_TOKEN): open the URL with #token=TOKEN at the
end, or paste the token when the page asks.
"""


def register(subparsers: Any) -> None:
    """Add the ``label`` command."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "label",
        help="label a dataset's answers in the browser",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("dataset", metavar="DATASET", help="dataset file to label (JSON, YAML, JSONL)")
    p.add_argument(
        "--run-dir", metavar="RUN", help="a run that graded DATASET (its judge's answers)"
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any free port)")
    p.add_argument(
        "--order",
        choices=("uncertain", "stratified", "random"),
        help="which item next (default: uncertain with a --run-dir whose judge gave "
        "confidences, else stratified)",
    )
    p.add_argument("--labeller", metavar="WHO", help="who is labelling (default: your user name)")
    p.add_argument(
        "--show-judge", action="store_true", help="show the judge's answers before labelling"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the orders (default 0)")
    p.add_argument("--token-file", metavar="F", help="file holding the page's token")
    p.set_defaults(func=run)


def _labeller(given: str | None) -> str:
    from .._datasets._labels import LABELLER_PATTERN

    if given is None:
        try:
            given = re.sub(r"[^A-Za-z0-9_.@+\-]", "", getpass.getuser())[:64] or "labeller"
        except (KeyError, OSError):
            given = "labeller"
        given = given if LABELLER_PATTERN.match(given) else "labeller"
    if not LABELLER_PATTERN.match(given):
        raise ConfigError(
            f"--labeller {given!r}: use letters, digits and _ . @ + - (at most 64, starting "
            "with a letter or digit)"
        )
    return given


YAML_SLOW = 300


def _confident(judged: Any) -> bool:
    return bool(judged) and any(
        j.confidence is not None for answers in judged for j in answers.values()
    )


def run(args: argparse.Namespace) -> int:
    """Run ``rubricjudge label``."""
    from .._label._app import LabelSettings
    from .._label._judged import read_run
    from .._label._order import order_items
    from .._label._run import bind, loopback_hosts, serve_labels
    from .._label._store import LabelStore
    from .._server._run import is_loopback, loopback_or_token

    if args.dataset.startswith(EXAMPLE_PREFIX):
        raise ConfigError(
            f"{args.dataset}: a bundled example cannot be labelled in place; write it to a "
            "file first (e.g. with `rubricjudge evaluate ... --run-dir`, whose "
            "dataset.jsonl is a copy) and label that file"
        )
    if not 0 <= args.port < 65536:
        raise ConfigError(f"--port {args.port!r} is not a TCP port (0-65535)")
    labeller = _labeller(args.labeller)
    token = loopback_or_token(args.host, token_file=args.token_file, env="LABEL_TOKEN")
    store = LabelStore(Path(args.dataset))
    if store.removed_temps:
        print(
            f"rubricjudge: note: removed {store.removed_temps} temporary copies of "
            f"{args.dataset} that an interrupted save left beside it",
            file=sys.stderr,
        )
    file = store.current()
    judged, scores = (None, None)
    if args.run_dir:
        judged, scores = read_run(args.run_dir, file.dataset)
    order_name = args.order or ("uncertain" if _confident(judged) else "stratified")
    order = order_items(order_name, file.dataset, judged, scores, seed=args.seed)
    if file.kind == "yaml" and len(order) > YAML_SLOW:
        print(
            f"rubricjudge: note: each label rewrites this YAML file whole ({len(order)} items: "
            "seconds a label); a JSON or JSONL copy of the dataset saves in a fraction of that",
            file=sys.stderr,
        )
    sock = bind(args.host, args.port)
    port = sock.getsockname()[1]
    shown_host = f"[{args.host.strip('[]')}]" if ":" in args.host else args.host
    settings = LabelSettings(
        store=store,
        order=order,
        labeller=labeller,
        judged=judged,
        show_judge=args.show_judge,
        token=token,
        hosts=loopback_hosts(args.host, port) if is_loopback(args.host) else None,
        order_name=order_name,
    )
    auth = "token required" if token else "this machine only"
    print(
        f"rubricjudge: labelling {args.dataset} as {labeller!r}, {order_name} order, "
        f"{len(order)} items ({auth}); Ctrl-C stops",
        file=sys.stderr,
    )
    serve_labels(settings, sock, f"http://{shown_host}:{port}/")
    return 0
