"""A room thermostat of your own: heat or cool a room to a setpoint, against the weather.

A flat env with a continuous action and a dict observation, written following
``packages/maze-env/docs/writing_your_own_env.md``. It fires :class:`ThermostatEvents` and
reports the KPIs ``mean_abs_deviation`` and ``comfort_share``.
"""

from thermostat.env import ThermostatCoreEnv, ThermostatEnv, make_thermostat_env
from thermostat.events import ThermostatEvents, ThermostatKpiCalculator

__all__ = ["ThermostatCoreEnv", "ThermostatEnv", "ThermostatEvents", "ThermostatKpiCalculator", "make_thermostat_env"]
