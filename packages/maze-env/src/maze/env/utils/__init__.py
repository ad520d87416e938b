"""Utilities of the env layer: the config factory, seeding and running statistics."""
