"""Hybrid metrics (BLEU, chrF, ROUGE, exact match, readability, perplexity, custom)."""
