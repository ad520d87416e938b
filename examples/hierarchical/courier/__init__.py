"""A hierarchical env of your own: a dispatcher picks a depot (sub-task), a driver per sub-task drives there.

Two policies keyed by sub-step: ``dispatch`` (one actor per episode) and ``drive`` (a new
actor per sub-task, done when it arrives: ``agent_counts_dict`` ``{"dispatch": 1, "drive": -1}``).
"""

from courier.env import CourierCoreEnv, CourierEnv, CourierState, make_courier_env

__all__ = ["CourierCoreEnv", "CourierEnv", "CourierState", "make_courier_env"]
