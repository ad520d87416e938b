import pytest
import torch


@pytest.fixture(autouse=True)
def _deterministic_torch() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
