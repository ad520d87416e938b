"""recommend with an exported (ONNX) masked Cutting-2D policy, in a process where torch cannot be imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from importlib.resources import files
from pathlib import Path

import pytest
import yaml

torch = pytest.importorskip("torch")  # exporting the policy needs the torch extra; deploying it does not
pytest.importorskip("onnxruntime")
export_policy = pytest.importorskip("maze.perception.export").export_policy
build_model_composer = pytest.importorskip("maze.perception.models.base_model_composer").build_model_composer

SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.modules["torch"] = None  # any import of torch fails
    from maze.deploy import AgentDeployment, OnnxPolicy
    from maze.env.examples.cutting_2d import Cutting2DMazeState

    if __name__ == "__main__":
        agent = AgentDeployment.from_run_dir(sys.argv[1], backend="onnx")
        assert isinstance(agent.policy, OnnxPolicy)
        state = Cutting2DMazeState([(4, 3), (2, 3), (1, 2), (2, 2), (1, 1)], 50, (1, 2), (4, 3))
        local = agent.recommend(state, k=3, horizon=5, n_rollouts=2, seed=3).to_dict()
        remote = agent.recommend(state, k=3, horizon=5, n_rollouts=2, seed=3, n_workers=2).to_dict()
        agent.close_recommender()
        local.pop("elapsed_s"), remote.pop("elapsed_s")
        print(json.dumps({"same": local == remote, "recommendation": local}))
    """
)


def test_recommend_runs_torch_free_on_an_onnx_export_in_process_and_in_workers(tmp_path: Path) -> None:
    from maze.env.examples.cutting_2d import masked_struct_env_factory
    from maze.env.utils.spaces_config import SpacesConfig

    torch.manual_seed(0)
    env = masked_struct_env_factory()
    config = yaml.safe_load(
        (files("maze.perception") / "conf" / "model" / "tutorial_cutting_2d_struct_masked.yaml").read_text()
    )
    policy = build_model_composer(config, SpacesConfig.from_env(env)).torch_policy("cpu")
    env_config = {"_target_": "maze.env.examples.cutting_2d.masked_struct_env_factory"}
    export_policy(policy, SpacesConfig.from_env(env), tmp_path / "onnx", env=env_config)
    (tmp_path / "recommend.py").write_text(SCRIPT)
    result = subprocess.run(
        [sys.executable, str(tmp_path / "recommend.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    output = json.loads(result.stdout.strip().splitlines()[-1])
    assert output["same"]
    candidates = output["recommendation"]["candidates"]
    assert len(candidates) == 3 and len({c["action"]["piece_idx"] for c in candidates}) == 3
    assert {c["action"]["piece_idx"] for c in candidates} <= {0, 1, 2, 3}  # legal: the 1 x 1 piece (4) is masked
    assert all(c["rollouts_finished"] == 2 and "raw_piece_usage_per_step" in c["kpis"] for c in candidates)
