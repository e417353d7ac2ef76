"""The rubric model: criteria, rubrics, verdicts, reports and the scoring rules."""
