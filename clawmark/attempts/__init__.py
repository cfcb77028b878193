"""Attempts: one cell of a track, composing environment, claw, extraction, evaluator, results."""
