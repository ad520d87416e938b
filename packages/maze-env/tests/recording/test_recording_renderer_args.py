import numpy as np
import pytest
from maze.env.core.renderer_args import IntRangeArg, OptionsArrayArg, RendererArg
from maze.env.errors import ConfigurationError


def test_int_range_arg_allows_the_closed_range():
    arg = IntRangeArg("bin", "Bin index", min_value=2, max_value=5)
    assert isinstance(arg, RendererArg)
    assert (arg.name, arg.title) == ("bin", "Bin index")
    assert list(arg.allowed_values) == [2, 3, 4, 5]
    assert arg.default == 2
    assert arg.validate(5) == 5
    assert arg.validate(np.int64(3)) == 3
    for bad in (1, 6, 2.5, True, "3"):
        with pytest.raises(ValueError, match="'bin'.*from 2 to 5"):
            arg.validate(bad)


def test_int_range_arg_rejects_bad_bounds():
    with pytest.raises(ConfigurationError, match="max_value"):
        IntRangeArg("bin", "Bin", min_value=3, max_value=2)
    with pytest.raises(ConfigurationError, match="min_value must be an int"):
        IntRangeArg("bin", "Bin", min_value=0.5, max_value=2)
    assert list(IntRangeArg("only", "Only", 4, 4).allowed_values) == [4]


def test_options_array_arg():
    arg = OptionsArrayArg("view", "View", ["inventory", "demand"])
    assert arg.allowed_values == ("inventory", "demand")
    assert arg.default == "inventory"
    assert arg.validate("demand") == "demand"
    with pytest.raises(ValueError, match=r"'view' got 'orders'; allowed are \['inventory', 'demand'\]"):
        arg.validate("orders")
    assert "OptionsArrayArg(name='view'" in repr(arg)


@pytest.mark.parametrize("options", [[], "ab", None, ["a", "a"]])
def test_options_array_arg_rejects_bad_options(options):
    with pytest.raises(ConfigurationError, match="OptionsArrayArg 'view'"):
        OptionsArrayArg("view", "View", options)


@pytest.mark.parametrize("name", ["", "two words", "1st", None])
def test_renderer_arg_names_must_be_identifiers(name):
    with pytest.raises(ConfigurationError, match="Python identifier"):
        IntRangeArg(name, "Title", 0, 1)
