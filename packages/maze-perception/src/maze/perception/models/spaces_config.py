"""SpacesConfig lives in maze-env (torch-free, so deployments without torch check spaces too); kept importable here."""

from maze.env.utils.spaces_config import FORMAT, SpacesConfig, space_from_data, space_to_data

__all__ = ["FORMAT", "SpacesConfig", "space_from_data", "space_to_data"]
