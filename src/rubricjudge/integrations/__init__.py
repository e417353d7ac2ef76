"""Integrations with engines that run elsewhere; each needs its own extra."""
