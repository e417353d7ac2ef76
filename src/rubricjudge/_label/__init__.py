"""The labelling page (``rubricjudge label``): people label answers; the judge says which first."""

from ._app import LabelSettings, create_app
from ._order import ORDERS, order_items
from ._run import serve_labels
from ._store import LabelStore

__all__ = ["ORDERS", "LabelSettings", "LabelStore", "create_app", "order_items", "serve_labels"]
