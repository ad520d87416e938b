"""A small structured env of your own: sort parcels from a conveyor into bins.

Every env step has two sub-steps: ``0`` picks a bin for the parcel (bins under maintenance
are masked out with the observation ``bin_mask``), ``1`` picks how to handle it (gentle or
fast) after seeing which bin was chosen. The env fires :class:`SortingEvents` and reports
the KPI ``sort_accuracy``.
"""

from sorting.env import SortingCoreEnv, SortingEnv, make_sorting_env
from sorting.events import SortingEvents, SortingKpiCalculator

__all__ = ["SortingCoreEnv", "SortingEnv", "SortingEvents", "SortingKpiCalculator", "make_sorting_env"]
