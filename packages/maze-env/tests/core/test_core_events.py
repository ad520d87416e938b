"""Pubsub, subscribers, reward aggregation and the step events of a MazeEnv."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pytest
from gymnasium import spaces
from maze.env import (
    ActionConversionInterface,
    CoreEnv,
    EventEnvMixin,
    EventService,
    MazeEnv,
    ObservationConversionInterface,
    Pubsub,
    RewardAggregatorInterface,
    Subscriber,
    Wrapper,
)
from maze.env.testing.env_checker import check_env


class ShopEvents:
    """Event topic of the tiny shop."""

    def item_sold(self, price: float) -> None:
        """An item left the shelf for ``price``."""

    def shelf_empty(self) -> None:
        """Nothing left to sell."""


class OtherEvents:
    def ignored(self) -> None:
        """Nobody subscribes to this."""


class SoldCounter(Subscriber):
    def get_interfaces(self) -> list[type]:
        return [ShopEvents]


class SalesReward(RewardAggregatorInterface):
    """Reward = income of the step minus 1 for an empty shelf."""

    def get_interfaces(self) -> list[type]:
        return [ShopEvents]

    def summarize_reward(self, maze_state: Optional[Any] = None) -> float:
        income = sum(event.attributes["price"] for event in self.query_events(ShopEvents.item_sold))
        return income - len(list(self.query_events(ShopEvents.shelf_empty)))


class ShopCoreEnv(CoreEnv):
    """Sells ``maze_action`` items per step from a shelf of 5 items at price 2."""

    def __init__(self) -> None:
        super().__init__()
        self.pubsub = Pubsub(self.context.event_service)
        self.events = self.pubsub.create_event_topic(ShopEvents)
        self.reward_aggregator = SalesReward()
        self.pubsub.register_subscriber(self.reward_aggregator)
        self.stock = 5

    def step(self, maze_action: int) -> tuple[Any, float, bool, bool, dict]:
        sold = min(maze_action, self.stock)
        for _ in range(sold):
            self.events.item_sold(price=2.0)
        self.stock -= sold
        if self.stock == 0:
            self.events.shelf_empty()
        return self.get_maze_state(), self.reward_aggregator.summarize_reward(), self.stock == 0, False, {}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        self.stock = 5
        return self.get_maze_state(), {}

    def get_maze_state(self) -> int:
        return self.stock


class StockObservation(ObservationConversionInterface):
    def maze_to_space(self, maze_state: int) -> dict[str, Any]:
        return {"stock": np.array([maze_state], dtype=np.float32)}

    def space(self) -> spaces.Dict:
        return spaces.Dict({"stock": spaces.Box(0.0, 5.0, shape=(1,), dtype=np.float32)})


class SellAction(ActionConversionInterface):
    def space_to_maze(self, action: dict[str, Any], maze_state: Any) -> int:
        return int(action["sell"])

    def space(self) -> spaces.Dict:
        return spaces.Dict({"sell": spaces.Discrete(3)})


def make_shop_env() -> MazeEnv[ShopCoreEnv]:
    return MazeEnv(ShopCoreEnv(), {0: SellAction()}, {0: StockObservation()})


def test_subscriber_receives_the_events_of_its_topic() -> None:
    service = EventService()
    pubsub = Pubsub(service)
    subscriber = SoldCounter()
    pubsub.register_subscriber(subscriber)
    shop = pubsub.create_event_topic(ShopEvents)
    other = pubsub.create_event_topic(OtherEvents)
    shop.item_sold(price=1.5)
    shop.item_sold(price=2.5)
    other.ignored()
    sold = list(subscriber.query_events(ShopEvents.item_sold))
    assert len(sold) == 2
    assert [event.attributes["price"] for event in sold] == [1.5, 2.5]
    assert sold[0].interface_class is ShopEvents
    assert list(subscriber.query_events(ShopEvents.shelf_empty)) == []
    assert len(list(subscriber.query_events([ShopEvents.item_sold, ShopEvents.shelf_empty]))) == 2
    assert len(service.step_events) == 3  # the service records every event, subscribed or not


def test_clearing_step_events_also_clears_subscribers() -> None:
    service = EventService()
    pubsub = Pubsub(service)
    subscriber = SoldCounter()
    pubsub.register_subscriber(subscriber)
    pubsub.create_event_topic(ShopEvents).item_sold(price=1.0)
    service.clear_step_events()
    assert service.step_events == [] and subscriber.events == []


def test_topic_proxy_rejects_undeclared_events() -> None:
    topic = Pubsub(EventService()).create_event_topic(ShopEvents)
    with pytest.raises(AttributeError, match="ShopEvents declares no event 'item_stolen'"):
        topic.item_stolen()


def test_reward_aggregator_computes_the_reward_from_events() -> None:
    env = make_shop_env()
    env.reset(seed=0)
    assert env.step({"sell": 2})[1] == 4.0
    assert env.step({"sell": 0})[1] == 0.0
    _, reward, terminated, truncated, _ = env.step({"sell": 2})
    assert reward == 4.0 and not terminated
    _, reward, terminated, truncated, _ = env.step({"sell": 2})  # only one item left
    assert reward == 2.0 - 1.0
    assert terminated is True and truncated is False


def test_get_step_events_holds_only_the_last_step() -> None:
    env = Wrapper(make_shop_env())
    assert isinstance(env, EventEnvMixin)
    env.reset(seed=0)
    env.step({"sell": 2})
    events = list(env.get_step_events())
    assert [event.interface_method for event in events] == [ShopEvents.item_sold, ShopEvents.item_sold]
    env.step({"sell": 0})
    assert list(env.get_step_events()) == []
    env.step({"sell": 1})
    assert len(list(env.get_step_events())) == 1
    env.reset()
    assert list(env.get_step_events()) == []


def test_shop_env_passes_the_checker() -> None:
    check_env(make_shop_env(), n_steps=12)
