"""Ray: grading on a Ray cluster (see ``rubricjudge.integrations.ray``)."""
