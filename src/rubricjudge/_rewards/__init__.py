"""Rubric scores as reinforcement-learning rewards."""
