"""Runs every part of the Cutting-2D tutorial as a user would and checks what it prints."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from maze.env.examples.cutting_2d import CuttingEvents, masked_struct_env_factory

HERE = Path(__file__).resolve().parent
PART_1_REWARDS = [-1, 0, 0, -1, 0, 0, 0, 0, 0, -1, -2, -2, -2, -2, -2]
STEP_LINE = re.compile(r"^reward (-?[\d.]+) \| terminated (\w+) \| truncated (\w+) \| info (.*)$", re.MULTILINE)


def run_part(script: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(HERE / script), *args], capture_output=True, text=True, timeout=300, cwd=HERE
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def step_lines(output: str) -> list[tuple[float, str, str, str]]:
    return [(float(r), terminated, truncated, info) for r, terminated, truncated, info in STEP_LINE.findall(output)]


def test_part01_prints_the_documented_rewards() -> None:
    lines = step_lines(run_part("part01_core_env.py"))
    assert [reward for reward, *_ in lines] == PART_1_REWARDS
    assert all(terminated == truncated == "False" for _, terminated, truncated, _ in lines)
    assert [info for *_, info in lines] == ["{'msg': 'valid_cut'}"] * 10 + ["{'error': 'invalid_cut'}"] * 5


def test_part02_renders_two_axes_into_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "cutting.png"
    output = run_part("part02_renderer.py", "--out", str(out))
    assert [reward for reward, *_ in step_lines(output)] == PART_1_REWARDS
    assert "'Cutting 2D' with 2 axes" in output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_part03_prints_observation_shapes_and_steps() -> None:
    output = run_part("part03_maze_env.py")
    assert "observation inventory: shape (10, 2)" in output
    assert "observation inventory_size: shape (1,)" in output
    assert "observation ordered_piece: shape (2,)" in output
    lines = step_lines(output)
    assert len(lines) == 15
    assert {info for *_, info in lines} <= {
        "{'msg': 'valid_cut'}",
        "{'error': 'invalid_cut'}",
        "{'error': 'piece_id_out_of_bounds'}",
    }


def table_rows(output: str) -> dict[str, float]:
    """``'<topic> <event> <key>'`` -> value of every row of the printed statistics table."""
    rows = {}
    for line in output.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[0].strip().isdigit() and not parts[2].strip().startswith("["):
            rows[" ".join(parts[1].split()[1:])] = float(parts[2])
    return rows


def table_keys(output: str) -> list[str]:
    """``'<topic> <event> <key>'`` of every row, list-valued rows included."""
    return [
        " ".join(line.split("|")[1].split()[1:])
        for line in output.splitlines()
        if line.count("|") == 2 and line.split("|")[0].strip().isdigit()
    ]


def check_statistics_table(output: str) -> None:
    rows = table_rows(output)
    reward_rows = [key for key in rows if key.startswith("BaseEnvEvents reward ")]
    assert len(reward_rows) == 9
    assert {
        "DiscreteActionEvents action substep_0/piece_idx",
        "DiscreteActionEvents action substep_0/cut_order",
    } <= set(table_keys(output))
    assert len([key for key in rows if key.startswith("BaseEnvEvents kpi ")]) == 4
    assert rows["BaseEnvEvents reward total_step_count"] == 15.0
    assert rows["BaseEnvEvents reward episode_count"] == 1.0
    replenished = rows["InventoryEvents piece_replenished mean_episode_total"]
    assert rows["InventoryEvents pieces_in_inventory step_max"] >= rows["InventoryEvents pieces_in_inventory step_mean"]
    assert (
        rows["CuttingEvents valid_cut mean_episode_total"] + rows["CuttingEvents invalid_cut mean_episode_total"] == 15
    )
    kpi = next(value for key, value in rows.items() if key.startswith("BaseEnvEvents kpi mean/raw_piece_usage"))
    assert kpi == pytest.approx(replenished / 15, abs=1e-3)


def test_part04_prints_event_and_kpi_statistics() -> None:
    check_statistics_table(run_part("part04_events_kpis.py"))


def test_part05_reward_aggregator_reproduces_part01() -> None:
    output = run_part("part05_reward_customization.py")
    rewards = [float(value) for value in re.findall(r"^reward (-?[\d.]+)$", output, re.MULTILINE)]
    assert rewards == PART_1_REWARDS
    assert "same rewards as part 1: True" in output
    assert "same rewards on 200 random actions: True" in output
    check_statistics_table(output)


def test_part06_spaces_alternate_between_sub_steps() -> None:
    output = run_part("part06_structured_env.py")
    assert "actor 1:             ActorID(step_key=0, agent_id=0)" in output
    assert "actor 2:             ActorID(step_key=1, agent_id=0)" in output
    assert "observation 1:       ['inventory', 'inventory_size', 'ordered_piece']" in output
    assert "observation 2:       ['ordered_piece', 'selected_piece']" in output
    assert "'piece_idx': Discrete(200)" in output
    assert "'cut_order': Discrete(2), 'cut_rotation': Discrete(2)" in output
    assert "actor rewards [-0.5, -0.5]" in output
    assert "env time 1" in output


def test_part07_greedy_uses_fewer_raw_pieces_than_random() -> None:
    output = run_part("part07_masking.py", "--episodes", "3")
    assert "observation_space 0: ['inventory', 'inventory_mask', 'inventory_size', 'ordered_piece']" in output
    assert "observation_space 1: ['cutting_mask', 'ordered_piece', 'selected_piece']" in output
    results = {
        name: (float(usage), float(reward), float(invalid))
        for name, usage, reward, invalid in re.findall(
            r"^(\w+)\s+raw_piece_usage_per_step ([\d.]+) \| mean reward (-?[\d.]+) \| mean invalid actions ([\d.]+)$",
            output,
            re.MULTILINE,
        )
    }
    assert set(results) == {"greedy", "random_valid", "random"}
    assert results["greedy"][0] < results["random_valid"][0]
    assert results["greedy"][1] > results["random_valid"][1] > results["random"][1]
    assert results["greedy"][0] == pytest.approx(30 / 180, abs=1e-4)
    assert results["greedy"][2] == results["random_valid"][2] == 0.0


def test_masks_never_allow_an_invalid_action() -> None:
    """Sampling only where the masks are 1 never causes an invalid selection or cut."""
    env = masked_struct_env_factory(max_pieces_in_inventory=8, raw_piece_size=(5, 4), static_demand=[(2, 3), (1, 4)])
    rng = np.random.default_rng(0)
    observation, _ = env.reset(seed=0)
    invalid = (CuttingEvents.invalid_cut, CuttingEvents.invalid_piece_selected)
    for _ in range(400):
        if env.actor_id().step_key == 0:
            action = {"piece_idx": int(rng.choice(np.flatnonzero(observation["inventory_mask"])))}
        else:
            rotation = int(rng.choice(np.flatnonzero(observation["cutting_mask"])))
            action = {"cut_rotation": rotation, "cut_order": int(rng.integers(2))}
        observation, _, _, _, info = env.step(action)
        assert not any(event.interface_method in invalid for event in env.get_step_events()), info
