"""Artifacts under review: a store with a status workflow and recorded evaluations."""
