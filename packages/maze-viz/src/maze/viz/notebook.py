"""Jupyter viewers built with ipywidgets (the ``notebook`` extra).

Install it from the repository root: ``pip install -c tools/constraints.txt './packages/maze-viz[notebook]'``.

* :class:`NotebookTrajectoryViewer` - steps through a recorded episode with a slider,
  play and step buttons, drawing every step with the env's maze ``Renderer``; the
  renderer's extra arguments (``IntRangeArg``, ``OptionsArrayArg``) become a slider or a
  dropdown; the step's action, reward and events are shown beside the picture.
* :class:`NotebookEventLogsViewer` - the events of an episode in a table, filtered by
  topic, event and step, with the episode's KPIs.

In a notebook::

    from maze.viz import NotebookTrajectoryViewer, trajectory_files
    NotebookTrajectoryViewer(trajectory_files("outputs/.../trajectory_data")[0]).build()

ipywidgets (and IPython) are imported when a viewer is built, not with ``maze.viz``.
"""

from __future__ import annotations

import html
from typing import Any, Optional

from maze.env.core.renderer_args import IntRangeArg, OptionsArrayArg, RendererArg
from maze.env.core.rendering import Renderer, import_pyplot
from maze.env.errors import ConfigurationError
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.kpi_calculator import KpiCalculator
from maze.viz._extras import import_extra
from maze.viz.event_logs import EpisodeInput, episode_event_log, episode_kpis, event_rows
from maze.viz.trajectories import (
    TrajectoryInput,
    describe_step,
    load_state_trajectory,
    render_step,
    replay_renderer,
)

__all__ = ["NotebookTrajectoryViewer", "NotebookEventLogsViewer"]

_ALL = "(all)"


def _widgets(purpose: str) -> Any:
    return import_extra("ipywidgets", "notebook", purpose)


def html_table(header: list[str], rows: list[list[Any]]) -> str:
    """An HTML table (cells escaped), as the notebook viewers show them."""
    head = "".join(f"<th style='text-align:left'>{html.escape(str(cell))}</th>" for cell in header)
    body = "".join(
        "<tr>" + "".join(f"<td style='text-align:left'>{html.escape(str(cell))}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


class NotebookTrajectoryViewer:
    """Replays a recorded episode in a notebook, one step at a time.

    Args:
        record: The episode (a StateTrajectoryRecord) or the path of its trajectory file.
        renderer: Draws the steps (default: the renderer recorded with the episode).

    Raises:
        TrajectoryLoadError: The file cannot be loaded or the episode is empty.
        ConfigurationError: There is no renderer that can replay the episode (e.g. a plain
            gymnasium env's); the message says what to do instead.
    """

    def __init__(self, record: TrajectoryInput, renderer: Optional[Renderer] = None) -> None:
        self.record = load_state_trajectory(record)
        self.renderer = replay_renderer(self.record, renderer)
        self.renderer_args: list[RendererArg] = list(self.renderer.get_renderer_args())
        self.widget: Any = None
        self.slider: Any = None
        self.arg_widgets: dict[str, Any] = {}

    def build(self) -> Any:
        """Builds the widget (shown when it is the value of a notebook cell) and draws the first step.

        Returns:
            An ``ipywidgets.VBox``; :attr:`slider`, :attr:`play`, :attr:`previous_button`,
            :attr:`next_button`, :attr:`arg_widgets` (by argument name), :attr:`picture`
            and :attr:`details` are its parts.
        """
        widgets = _widgets("NotebookTrajectoryViewer")
        last = len(self.record) - 1
        self.slider = widgets.IntSlider(value=0, min=0, max=last, description="step", continuous_update=False)
        self.play = widgets.Play(value=0, min=0, max=last, interval=500, description="play")
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.previous_button = widgets.Button(description="◀ previous", layout=widgets.Layout(width="auto"))
        self.next_button = widgets.Button(description="next ▶", layout=widgets.Layout(width="auto"))
        self.previous_button.on_click(lambda _: self._move(-1))
        self.next_button.on_click(lambda _: self._move(1))
        self.arg_widgets = {arg.name: self._arg_widget(widgets, arg) for arg in self.renderer_args}
        self.picture = widgets.Output()
        self.details = widgets.HTML()
        for control in (self.slider, *self.arg_widgets.values()):
            control.observe(lambda _: self.show(), names="value")
        controls = widgets.HBox([self.play, self.previous_button, self.slider, self.next_button])
        self.widget = widgets.VBox(
            [controls, widgets.HBox(list(self.arg_widgets.values())), widgets.HBox([self.picture, self.details])]
        )
        self.show()
        return self.widget

    @staticmethod
    def _arg_widget(widgets: Any, arg: RendererArg) -> Any:
        if isinstance(arg, IntRangeArg):
            return widgets.IntSlider(
                value=arg.default, min=arg.min_value, max=arg.max_value, description=arg.title, continuous_update=False
            )
        if isinstance(arg, OptionsArrayArg):
            return widgets.Dropdown(
                options=[(str(option), option) for option in arg.options], value=arg.default, description=arg.title
            )
        raise ConfigurationError(
            f"renderer argument {arg.name!r} is a {type(arg).__name__}; the notebook viewer shows IntRangeArg "
            "(slider) and OptionsArrayArg (dropdown)"
        )

    def _move(self, delta: int) -> None:
        self.slider.value = min(max(self.slider.value + delta, self.slider.min), self.slider.max)

    @property
    def step(self) -> int:
        """The step shown."""
        return int(self.slider.value) if self.slider is not None else 0

    def renderer_kwargs(self) -> dict[str, Any]:
        """The renderer arguments chosen in the widgets (their defaults before :meth:`build`)."""
        if not self.arg_widgets:
            return {arg.name: arg.default for arg in self.renderer_args}
        return {name: control.value for name, control in self.arg_widgets.items()}

    def show(self) -> None:
        """Draws the current step into the picture and its action, reward and events into the details."""
        display = import_extra("IPython.display", "notebook", "NotebookTrajectoryViewer")
        plt = import_pyplot()
        step = self.step
        description = describe_step(self.record.step_records[step])
        self.details.value = f"<b>step {step} of {len(self.record) - 1}</b>" + html_table(
            ["", ""], [[name, text] for name, text in description.items()]
        ).replace("\n", "<br>")
        with self.picture:
            display.clear_output(wait=True)
            render_step(self.record, self.renderer, step, **self.renderer_kwargs())
            figure = plt.gcf()
            display.display(figure)
            plt.close(figure)


class NotebookEventLogsViewer:
    """Browses the events of one episode in a notebook, with the episode's KPIs.

    Args:
        episode: An EpisodeEventLog, a recorded episode or the path of its trajectory file.
        kpi_calculator: Computes the KPIs (default: the ``BaseEnvEvents.kpi`` events in the log).
    """

    def __init__(self, episode: EpisodeInput, kpi_calculator: Optional[KpiCalculator] = None) -> None:
        last_state = None
        if not isinstance(episode, EpisodeEventLog):
            episode = load_state_trajectory(episode)
            last_state = episode.step_records[-1].maze_state
        self.event_log = episode_event_log(episode)
        self.kpis = episode_kpis(self.event_log, kpi_calculator, last_state)
        self.rows = event_rows(self.event_log)
        self.widget: Any = None

    def build(self) -> Any:
        """Builds the widget: topic, event and step filters above the event table, the KPIs below it.

        Returns:
            An ``ipywidgets.VBox``; :attr:`topic_filter`, :attr:`event_filter`,
            :attr:`step_filter`, :attr:`table` and :attr:`kpi_table` are its parts.
        """
        widgets = _widgets("NotebookEventLogsViewer")
        topics = sorted({row.topic for row in self.rows})
        self.topic_filter = widgets.Dropdown(options=[_ALL, *topics], value=_ALL, description="topic")
        self.event_filter = widgets.Dropdown(options=[_ALL], value=_ALL, description="event")
        steps = [(_ALL, -1)] + [(str(step), step) for step in range(len(self.event_log))]
        self.step_filter = widgets.Dropdown(options=steps, value=-1, description="step")
        self.table = widgets.HTML()
        self.kpi_table = widgets.HTML(
            "<b>KPIs</b>" + html_table(["kpi", "value"], [[name, f"{value:.4g}"] for name, value in self.kpis.items()])
            if self.kpis
            else "<b>KPIs</b>: none"
        )
        self.topic_filter.observe(lambda _: self._topic_changed(), names="value")
        self.event_filter.observe(lambda _: self.show(), names="value")
        self.step_filter.observe(lambda _: self.show(), names="value")
        self.widget = widgets.VBox(
            [widgets.HBox([self.topic_filter, self.event_filter, self.step_filter]), self.table, self.kpi_table]
        )
        self.show()
        return self.widget

    def _topic_changed(self) -> None:
        topic = self.topic_filter.value
        events = sorted({row.event for row in self.rows if topic in (_ALL, row.topic)})
        self.event_filter.options = [_ALL, *events]
        self.event_filter.value = _ALL
        self.show()

    def selected_rows(self) -> list[Any]:
        """The events the filters select (all events before :meth:`build`)."""
        if self.widget is None:
            return list(self.rows)
        topic, event, step = self.topic_filter.value, self.event_filter.value, self.step_filter.value
        return event_rows(
            self.event_log,
            topic=None if topic == _ALL else topic,
            event=None if event == _ALL else event,
            step=None if step < 0 else step,
        )

    def show(self) -> None:
        """Fills the table with the selected events."""
        rows = self.selected_rows()
        cells = [
            [row.step, row.topic, row.event, ", ".join(f"{k}={v!r}" for k, v in row.attributes.items())] for row in rows
        ]
        self.table.value = f"<b>{len(rows)} events</b>" + html_table(["step", "topic", "event", "attributes"], cells)
