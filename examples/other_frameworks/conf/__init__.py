"""The Hydra config package of the stable-baselines3 example (``make_env_from_hydra("conf")``)."""
