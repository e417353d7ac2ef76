"""Ray: grading on a Ray cluster (see ``rubricate.integrations.ray``)."""
