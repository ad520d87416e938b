"""Test helpers other packages reuse: the env checker and small fake envs."""
