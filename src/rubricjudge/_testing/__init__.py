"""Rubric assertions in tests: ``assert_rubric`` and the session behind the pytest fixture."""
