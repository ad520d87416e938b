"""ONNX export of policies: self-contained files with a dynamic batch dim, masks in the graph, plain metadata, clear errors."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
import torch
import yaml
from gymnasium import spaces
from maze.distributions import CategoricalProbabilityDistribution, DistributionMapper
from maze.env import GymMazeEnv
from maze.env.errors import ConfigurationError
from maze.env.examples.cutting_2d import masked_struct_env_factory
from maze.env.utils.spaces_config import SpacesConfig
from maze.env.wrappers.normalization import save_normalization_statistics
from maze.perception.agent.torch_policy import TorchPolicy
from maze.perception.checkpoint import save_checkpoint
from maze.perception.export import METADATA_FILE, OnnxExportError, export_policy, export_run_dir
from maze.perception.export.__main__ import main
from maze.perception.models.base_model_composer import build_model_composer

CONF = files("maze.perception") / "conf" / "model"


@pytest.fixture(autouse=True)
def _deterministic_torch() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)


def composer(model: str, env: object):  # noqa: ANN201
    config = yaml.safe_load((CONF / f"{model}.yaml").read_text())
    return build_model_composer(config, SpacesConfig.from_env(env)), config


def session(path: Path) -> onnxruntime.InferenceSession:
    return onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def test_cartpole_policy_is_one_self_contained_file_with_a_dynamic_batch_and_plain_metadata(tmp_path: Path) -> None:
    env = GymMazeEnv("CartPole-v1")
    built, config = composer("vector_obs", env)
    policy = built.torch_policy("cpu")
    out = export_policy(policy, SpacesConfig.from_env(env), tmp_path / "onnx", env={"name": "CartPole-v1"})
    assert sorted(path.name for path in out.iterdir()) == [METADATA_FILE, "policy_0.v1.onnx"]  # no external data file
    model = onnx.load(str(out / "policy_0.v1.onnx"))
    onnx.checker.check_model(model)
    assert [inp.name for inp in model.graph.input] == ["observation"]
    assert [out.name for out in model.graph.output] == ["action"]  # the critic's shared latent is not exported
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param  # symbolic batch dim
    for batch in (1, 7):
        observation = np.random.default_rng(batch).normal(size=(batch, 4)).astype(np.float32)
        (logits,) = session(out / "policy_0.v1.onnx").run(None, {"observation": observation})
        expected = policy.compute_logits_dict({"observation": observation})["action"].detach().numpy()
        np.testing.assert_allclose(logits, expected, rtol=1e-5, atol=1e-6)
    data = json.loads((out / METADATA_FILE).read_text())  # plain JSON: nothing to unpickle or instantiate
    assert data["format"] == "maze.onnx_policy/1" and data["opset"] >= 18 and data["env"] == {"name": "CartPole-v1"}
    assert data["networks"][0]["heads"] == [
        {"name": "action", "logits_shape": [2], "distribution": data["networks"][0]["heads"][0]["distribution"]}
    ]
    assert data["networks"][0]["heads"][0]["distribution"]["kind"] == "categorical"
    assert SpacesConfig.from_data(data["spaces"]).action_spaces_dict == env.action_spaces_dict


def test_masked_structured_policy_exports_every_sub_step_with_its_masks_inside_the_graph(tmp_path: Path) -> None:
    env = masked_struct_env_factory()
    built, _ = composer("tutorial_cutting_2d_struct_masked", env)
    out = export_policy(built.torch_policy("cpu"), SpacesConfig.from_env(env), tmp_path / "onnx")
    assert {path.name for path in out.iterdir()} == {METADATA_FILE, "policy_0.v1.onnx", "policy_1.v1.onnx"}
    observation, _ = env.reset(seed=0)
    selection = session(out / "policy_0.v1.onnx")
    feed = {node.name: np.asarray(observation[node.name], dtype=np.float32)[None] for node in selection.get_inputs()}
    (logits,) = selection.run(["piece_idx"], feed)
    mask = observation["inventory_mask"] == 0
    assert mask.any() and (~mask).any()
    assert np.all(logits[0][mask] == np.finfo(np.float32).min)  # masked in the graph, as in torch
    assert np.all(logits[0][~mask] > np.finfo(np.float32).min)
    heads = json.loads((out / METADATA_FILE).read_text())["networks"][1]["heads"]
    assert sorted(head["name"] for head in heads) == ["cut_order", "cut_rotation"]


class _EigenNet(torch.nn.Module):
    """A network using an op the ONNX exporter has no translation for (linalg.eig)."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, observation: dict) -> dict:
        matrices = self.linear(observation["observation"]).reshape(-1, 2, 2)
        return {"action": torch.linalg.eig(matrices)[0].real}


def test_an_op_the_exporter_cannot_handle_is_one_clear_error_and_keeps_an_earlier_export(tmp_path: Path) -> None:
    env = GymMazeEnv("CartPole-v1")
    spaces_config = SpacesConfig.from_env(env)
    (tmp_path / "onnx").mkdir()
    (tmp_path / "onnx" / "earlier.txt").write_text("kept")
    policy = TorchPolicy({0: _EigenNet()}, DistributionMapper(env.action_spaces_dict[0]))
    with pytest.raises(OnnxExportError, match=r"'policy_0' cannot be exported to ONNX: .*linalg_eig") as info:
        export_policy(policy, spaces_config, tmp_path / "onnx")
    assert "\n" not in str(info.value) and "\x1b" not in str(info.value)
    assert [path.name for path in (tmp_path / "onnx").iterdir()] == ["earlier.txt"]
    assert [path.name for path in tmp_path.iterdir()] == ["onnx"]  # no staging directory left behind


class _CustomCategorical(CategoricalProbabilityDistribution):
    """A user's distribution: the ONNX policy cannot know how to sample it."""


def test_a_custom_distribution_is_refused_naming_the_head(tmp_path: Path) -> None:
    env = GymMazeEnv("CartPole-v1")
    policy = composer("vector_obs", env)[0].torch_policy("cpu")
    rules = [{"action_head": "action", "distribution": _CustomCategorical}]
    policy.distribution_mapper = DistributionMapper(env.action_spaces_dict[0], rules)
    with pytest.raises(OnnxExportError, match=r"action head 'action' uses the distribution .*_CustomCategorical"):
        export_policy(policy, SpacesConfig.from_env(env), tmp_path / "onnx")


def test_run_dir_export_and_a_dir_without_policy(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    env = GymMazeEnv("CartPole-v1")
    built, config = composer("vector_obs", env)
    run = tmp_path / "run"
    run.mkdir()
    save_checkpoint(run, built.torch_policy("cpu"), SpacesConfig.from_env(env), config)
    save_normalization_statistics({"observation": {"mean": np.zeros(4), "std": np.ones(4)}}, run / "statistics.npz")
    assert main([str(run)]) == 0
    data = json.loads((run / "onnx" / METADATA_FILE).read_text())
    assert data["env"] is None  # no .hydra/config.yaml in this run dir
    assert data["normalization_statistics"] == {"observation": {"mean": [0.0] * 4, "std": [1.0] * 4}}

    (tmp_path / "empty").mkdir()
    capsys.readouterr()
    assert main([str(tmp_path / "empty")]) == 1
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and error[0].startswith("Error: ") and "holds no policy" in error[0]
    assert "state_dict.pt" in error[0]
    with pytest.raises(ConfigurationError, match="does not exist"):
        export_run_dir(tmp_path / "missing")


def test_box_heads_record_their_distribution_constants(tmp_path: Path) -> None:
    action_space = spaces.Dict({"force": spaces.Box(-2.0, 2.0, shape=(1,), dtype=np.float32)})
    observation_space = spaces.Dict({"observation": spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)})
    spaces_config = SpacesConfig({0: action_space}, {0: observation_space}, {0: 1})
    config = yaml.safe_load((CONF / "vector_obs.yaml").read_text())
    policy = build_model_composer(config, spaces_config).torch_policy("cpu")
    out = export_policy(policy, spaces_config, tmp_path / "onnx")
    head = json.loads((out / METADATA_FILE).read_text())["networks"][0]["heads"][0]
    assert head["logits_shape"] == [2]
    assert head["distribution"]["kind"] == "squashed_gaussian" and head["distribution"]["log_std_bounds"] == [
        -20.0,
        2.0,
    ]


def test_a_file_the_fast_exporter_gets_wrong_is_replaced_by_torch_exports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The TorchScript-based exporter is a shortcut: a failed or rejected file falls back to torch.export's."""
    from maze.perception.export import onnx_network

    env = GymMazeEnv("CartPole-v1")
    policy = composer("vector_obs", env)[0].torch_policy("cpu")
    used: list[str] = []
    fast, full = onnx_network._torchscript_export, onnx_network._torch_export

    def wrong(*args: object) -> onnx.ModelProto:
        used.append("torchscript")
        model = fast(*args)
        bias = next(init for init in model.graph.initializer if init.dims == [2])  # the action head's bias
        values = onnx.numpy_helper.to_array(bias) + 1.0
        bias.CopyFrom(onnx.numpy_helper.from_array(values.astype(np.float32), bias.name))
        return model

    def counted(*args: object) -> onnx.ModelProto:
        used.append("torch.export")
        return full(*args)

    monkeypatch.setattr(onnx_network, "_torchscript_export", wrong)
    monkeypatch.setattr(onnx_network, "_torch_export", counted)
    out = export_policy(policy, SpacesConfig.from_env(env), tmp_path / "onnx")
    assert used == ["torchscript", "torch.export"]
    observation = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    (logits,) = session(out / "policy_0.v1.onnx").run(None, {"observation": observation})
    expected = policy.compute_logits_dict({"observation": observation})["action"].detach().numpy()
    np.testing.assert_allclose(logits, expected, rtol=1e-5, atol=1e-6)

    monkeypatch.setattr(onnx_network, "_torchscript_export", fast)
    used.clear()
    export_policy(policy, SpacesConfig.from_env(env), tmp_path / "onnx")
    assert used == []  # a correct fast export is kept
