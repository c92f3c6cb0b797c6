"""Storage: finished rounds and match history, and the journal that lets rooms survive restarts."""
