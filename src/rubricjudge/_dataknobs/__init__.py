"""dataknobs-bots' rubric and artifact names over rubricjudge's objects."""
