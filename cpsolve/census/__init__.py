"""Censuses: whole families of puzzles counted at once (every chain that folds into a box)."""
