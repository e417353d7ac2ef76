"""Batch evaluation runs that survive crashes: ``evaluate``, the run store, summaries.

Where a run goes: ``_drive`` is the one run driver. Its :func:`drive` takes a
grader (a ``_job.RunGrader``), a plan (what the run grades and keeps: ``_evaluate``
has the dataset's, ``_drive.grade_items`` the CLI's stream of items) and the run's
options; it checks the run directory (``_store``) for ``resume`` / ``force``, has
batches answer first (``_batch_run``) and grades the rest. The other modules are
its parts: ``_engine.RunSession`` is what one run holds (lock, store, the grader
with its judges wrapped to record and replay, summary) and its pool of workers;
``_pool`` is a pool without a store for ``grade --pairwise`` / ``--group``;
``_remote`` grades on other workers (Ray's executor); ``_gc`` collects garbage less
often while a run goes.

This file exports nothing (ARCHITECTURE.md: code imports a name from the module
that defines it), so importing one module here (the CLI's ``_runs._fingerprint``,
say) never loads the batch APIs and their SDKs.
"""
