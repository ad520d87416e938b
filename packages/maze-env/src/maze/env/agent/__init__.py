"""Torch-free agent interfaces and simple policies."""
