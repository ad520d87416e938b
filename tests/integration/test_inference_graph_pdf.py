"""A two-modality actor-critic built with maze-perception is drawn to PDF by maze-viz (no graphviz)."""

from pathlib import Path

from maze.perception import (
    ConcatenationBlock,
    DenseBlock,
    InferenceBlock,
    LinearOutputBlock,
    VGGConvolutionDenseBlock,
    inference_graph_structure,
)
from maze.viz import InferenceGraph


def two_modality_policy() -> InferenceBlock:
    inventory = DenseBlock(in_keys="inventory", out_keys="z_inventory", in_shapes=(16,), hidden_units=[8])
    screen = VGGConvolutionDenseBlock(
        in_keys="screen", out_keys="z_screen", in_shapes=(3, 8, 8), hidden_channels=[2, 4], hidden_units=[8]
    )
    concat = ConcatenationBlock(
        in_keys=["z_inventory", "z_screen"],
        out_keys="z",
        in_shapes=inventory.out_shapes() + screen.out_shapes(),
        concat_dim=-1,
    )
    latent = DenseBlock(in_keys="z", out_keys="latent", in_shapes=concat.out_shapes(), hidden_units=[12])
    head = LinearOutputBlock(in_keys="latent", out_keys="action", in_shapes=latent.out_shapes(), output_units=4)
    return InferenceBlock(
        in_keys=["inventory", "screen"],
        out_keys=["action", "latent"],
        in_shapes=[(16,), (3, 8, 8)],
        perception_blocks={"z_inventory": inventory, "z_screen": screen, "z": concat, "latent": latent, "action": head},
    )


def test_policy_and_critic_graphs_are_written_as_pdfs(tmp_path: Path) -> None:
    policy = two_modality_policy()
    critic = InferenceBlock(
        in_keys="latent",
        out_keys="value",
        in_shapes=[(12,)],
        perception_blocks={
            "value": LinearOutputBlock(in_keys="latent", out_keys="value", in_shapes=(12,), output_units=1)
        },
    )
    for name, block in (("policy_graph", policy), ("critic_graph", critic)):
        path = InferenceGraph(inference_graph_structure(block)).save(name, str(tmp_path))
        assert path == tmp_path / f"{name}.pdf"
        content = path.read_bytes()
        assert content.startswith(b"%PDF") and len(content) > 1024
        assert content.count(b"/Type /Page") >= 1
