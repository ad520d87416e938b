"""The Hydra config tree of maze-run (config groups arrive with the training CLI)."""
