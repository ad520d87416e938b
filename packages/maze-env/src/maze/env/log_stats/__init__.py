"""Statistics of events: declaration decorators, aggregation, writers and logging state."""
