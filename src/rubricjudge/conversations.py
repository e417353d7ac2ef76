"""Conversations and agent trajectories: the model, reading, rendering and exact checks.

A submission may be a conversation wherever a submission goes. Read OpenAI or
Anthropic messages with :func:`read_messages`; render any submission for a judge
prompt with :func:`render_for_prompt` (within a budget, eliding visibly) or for a
page with :func:`render_for_page` (an escaped HTML fragment; :data:`PAGE_CSS`
styles it) or :func:`page_view` (plain data). Criteria may be scoped
(:data:`SCOPES`) or decided exactly by a :class:`TrajectoryCheck`. See
docs/conversations.md.
"""

from __future__ import annotations

from ._conversations._conversation import AssistantTurn, Conversation, Message, ToolCall, ToolUse
from ._conversations._messages import read_messages
from ._conversations._render_prompt import OVER_BUDGET_POLICIES, RenderedSubmission
from ._conversations._submission import Submission, render_for_prompt, to_submission
from ._methods._trajectory import json_subset, trajectory_holds
from ._model._reports import TurnReport
from ._model._trajectory_check import SCOPES, TRAJECTORY_CHECKS, TrajectoryCheck
from ._pages._render_page import PAGE_CSS, page_view, render_for_page

__all__ = [
    "OVER_BUDGET_POLICIES",
    "PAGE_CSS",
    "SCOPES",
    "TRAJECTORY_CHECKS",
    "AssistantTurn",
    "Conversation",
    "Message",
    "RenderedSubmission",
    "Submission",
    "ToolCall",
    "ToolUse",
    "TrajectoryCheck",
    "TurnReport",
    "json_subset",
    "page_view",
    "read_messages",
    "render_for_page",
    "render_for_prompt",
    "to_submission",
    "trajectory_holds",
]
