"""Every command line a learner types (tests/learner_door.py's COMMAND_LINES), every flag that takes a value: its
argparse type is one of mishran.cli's (positive_int, non_negative_int, positive_float, non_negative_float), or it
has choices, or it is a list of names with the package's own parser (LIST_TYPES), or it is free text (TEXT_FLAGS,
each with what the text is). A value its type must refuse ("abc", "-5", "0" where positive, "nan", "inf", "1e999",
"" ...) ends the command with exit status 2 and one error line in Bengali (or the list of choices), never a
traceback; an unknown flag exits with status 2 too.

The parser is taken from the command's own main() without running anything: argparse's parse_args is replaced by
one that hands back the parser, so a flag added to a main() is tested here the day it is added.
"""
import argparse
import functools
import importlib
import re
from unittest import mock

import pytest
from learner_door import COMMAND_LINES

from mishran import cli

BENGALI = re.compile(r"[\u0980-\u09FF]")

# What each of cli's types must refuse, and one value it takes (and what it gives for it).
REFUSED = {
    cli.positive_int: ["abc", "", " ", "-5", "0", "-0", "1.5", "nan", "inf", "1e999", "1e3", "0x10", "1" + "0" * 5000],
    cli.non_negative_int: ["abc", "", "-5", "-1", "1.5", "nan", "inf", "1e999"],
    cli.positive_float: ["abc", "", "-5", "0", "0.0", "-1e-9", "nan", "inf", "-inf", "1e999"],
    cli.non_negative_float: ["abc", "", "-5", "-1e-9", "nan", "inf", "-inf", "1e999"],
}
GOOD = {cli.positive_int: ("3", 3), cli.non_negative_int: ("0", 0), cli.positive_float: ("0.5", 0.5),
        cli.non_negative_float: ("0", 0.0)}
REFUSED_CHOICE = ["no-such-choice", "", "-5"]

# A list of names read by the package's own argparse type (its errors are argparse.ArgumentTypeError, in Bengali):
# "module.function" → values it must refuse, one it takes and what it gives for it.
LIST_TYPES = {"mishran.measure.bench.parse_modes": (["", ",", "xyz", "fp32,xyz", "fp17"], "fp32,bf16",
                                                    ["fp32", "bf16"]),
              "mishran.measure.memory._run_spec": (["", "xyz", "fp32:9", "fp32:x", ":1", "FP32"], "amp_bf16:1",
                                                   ("amp_bf16", 1)),
              "mishran.engines.fsdp._policy_names": (["", "xyz", "bf16,xyz", "BF16", "bf16,"], "bf16,fp32",
                                                     ("bf16", "fp32"))}

# Free text: argparse takes any text, and the command reads it as what is said here.
TEXT_FLAGS = {
    ("mishran.measure.profiler", "--out"): "the JSON file to write",
    ("mishran.measure.memory", "--json"): "the JSON file to write",
    ("mishran.engines.multi_gpu", "--out"): "the JSON file to write",
    ("mishran.engines.fsdp", "--out"): "the JSON file to write ('-': the screen)",
    ("mishran.capstone", "--out"): "the JSON file to write",
    ("mishran.capstone", "--checkpoint"): "the checkpoint file to write at --save-at",
    ("mishran.capstone", "--resume"): "the checkpoint file to resume from",
    ("mishran.capstone", "--prompt"): "the text the model continues (any Bengali text)",
    ("mishran.checkup", "--batch"): "package.module:function that makes the batch (checked when it is imported)",
    ("mishran.checkup", "--loss"): "package.module:function, the loss (checked when it is imported)",
    ("mishran.checkup", "--out"): "the JSON file to write ('-': the screen)",
}


class _Captured(Exception):
    def __init__(self, parser):
        super().__init__()
        self.parser = parser


def _main(module_name):
    """What `python -m module_name` runs: the module's main, or for a package its __main__'s."""
    module = importlib.import_module(module_name)
    if not hasattr(module, "main") and hasattr(module, "__path__"):
        module = importlib.import_module(f"{module_name}.__main__")
    return module.main


@functools.cache
def _parser(module_name) -> argparse.ArgumentParser:
    """The parser main() builds, caught where it would parse: nothing after it runs."""
    def capture(self, *args, **kwargs):
        raise _Captured(self)

    with mock.patch.object(argparse.ArgumentParser, "parse_args", capture), \
            mock.patch.object(argparse.ArgumentParser, "parse_known_args", capture):
        try:
            _main(module_name)([])
        except _Captured as caught:
            return caught.parser
    raise AssertionError(f"{module_name}: main([]) returned without parsing its command line")


def _flags(module_name):
    """(flag, action) for every option that takes a value (not --help or a store_true switch)."""
    return [(action.option_strings[-1], action) for action in _parser(module_name)._actions
            if action.option_strings and action.nargs != 0]


def _positionals(parser):
    """One stand-in value for each required positional (capstone.check's run files) and each required option
    (checkup's --batch), so only the flag under test is wrong (a repeated flag: the last one counts)."""
    needed = ["x.json" for a in parser._actions if not a.option_strings and a.nargs not in ("?", "*")]
    return needed + [f"{a.option_strings[-1]}=x" for a in parser._actions if a.option_strings and a.required]


def _cases():
    for module_name in COMMAND_LINES:
        try:
            flags = _flags(module_name)
        except Exception as err:  # noqa: BLE001 — a command whose parser cannot be built fails its own case
            _BROKEN[module_name] = f"{type(err).__name__}: {err}"
            yield pytest.param(module_name, None, id=f"{module_name} (parser)")
            continue
        for flag, _ in flags:
            yield pytest.param(module_name, flag, id=f"{module_name} {flag}")


_BROKEN: dict[str, str] = {}
CASES = list(_cases())


def _action(module_name, flag):
    if flag is None:
        pytest.fail(f"{module_name}: its parser could not be built: {_BROKEN[module_name]}")
    return dict(_flags(module_name))[flag]


def _type_name(kind):
    return f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', repr(kind))}"


def _kind(module_name, flag, action):
    """'number', 'choices', 'list' or 'text'; None for a flag with none of these (a failure of the test below)."""
    if action.type in REFUSED:
        return "number"
    if action.choices is not None:
        return "choices"
    if _type_name(action.type) in LIST_TYPES:
        return "list"
    if action.type is None and (module_name, flag) in TEXT_FLAGS:
        return "text"
    return None


@pytest.mark.parametrize(("module_name", "flag"), CASES)
def test_every_flag_has_a_door_type(module_name, flag):
    action = _action(module_name, flag)
    assert _kind(module_name, flag, action), \
        f"python -m {module_name} {flag}: type={_type_name(action.type) if action.type else None}, no choices: " \
        "give it one of mishran.cli's types (positive_int, non_negative_int, positive_float, non_negative_float) " \
        "or choices=, or list it in TEXT_FLAGS if it is free text"


def _typed_kind(module_name, flag):
    """The flag's action and kind; a flag with no door type is test_every_flag_has_a_door_type's failure, once."""
    action = _action(module_name, flag)
    kind = _kind(module_name, flag, action)
    if kind is None:
        pytest.skip("no door type: test_every_flag_has_a_door_type fails for it")
    return action, kind


def _refusal(parser, argv, capsys):
    """Parse argv; the error line argparse printed (the last line of stderr), or a failure that says what happened."""
    capsys.readouterr()
    try:
        parsed = parser.parse_args(argv)
    except SystemExit as end:
        err = capsys.readouterr().err
        assert end.code == 2, f"{argv}: exit status {end.code}, not 2"
        assert "Traceback" not in err, f"{argv}: a traceback\n{err}"
        return err.strip().splitlines()[-1]
    except Exception as err:  # noqa: BLE001 — a type that raises anything but argparse's errors is a traceback
        pytest.fail(f"{argv}: raw {type(err).__name__}: {err}")
    pytest.fail(f"{argv}: taken, as {parsed}")


@pytest.mark.parametrize(("module_name", "flag"), CASES)
def test_every_flag_refuses_what_its_type_must(module_name, flag, capsys):
    action, kind = _typed_kind(module_name, flag)
    parser = _parser(module_name)
    if kind == "text":
        return                                     # any text is a value; the command reads it as TEXT_FLAGS says
    refused = {"number": lambda: REFUSED[action.type], "choices": lambda: REFUSED_CHOICE,
               "list": lambda: LIST_TYPES[_type_name(action.type)][0]}[kind]()
    for value in refused:
        line = _refusal(parser, [*_positionals(parser), f"{flag}={value}"], capsys)
        said = BENGALI.search(line) or (action.choices is not None and all(str(c) in line for c in action.choices))
        assert said and "error:" in line, f"python -m {module_name} {flag}={value!r}: the error line {line!r} " \
                                          "has no Bengali (nor the choices)"


@pytest.mark.parametrize(("module_name", "flag"), CASES)
def test_every_flag_takes_a_good_value(module_name, flag):
    """The types are not refusing everything: one right value of each flag is taken, as what it means."""
    action, kind = _typed_kind(module_name, flag)
    value, expected = {"number": lambda: GOOD[action.type],
                       "choices": lambda: (str(action.choices[0]), action.choices[0]),
                       "list": lambda: LIST_TYPES[_type_name(action.type)][1:],
                       "text": lambda: ("অ.json", "অ.json")}[kind]()
    parser = _parser(module_name)
    parsed = getattr(parser.parse_args([*_positionals(parser), f"{flag}={value}"]), action.dest)
    assert parsed in (expected, [expected]), f"{flag}={value!r} gave {parsed!r}"     # [..]: a flag with nargs


@pytest.mark.parametrize("module_name", COMMAND_LINES)
def test_an_unknown_flag_exits_with_status_2(module_name, capsys):
    parser = _parser(module_name)
    line = _refusal(parser, [*_positionals(parser), "--no-such-flag=1"], capsys)
    assert "--no-such-flag" in line


def test_the_text_flags_are_real_flags():
    """TEXT_FLAGS names flags that exist and are untyped (a stale entry would hide nothing, but would mislead)."""
    for (module_name, flag) in TEXT_FLAGS:
        if module_name in _BROKEN:
            continue
        action = dict(_flags(module_name)).get(flag)
        assert action is not None and action.type is None and action.choices is None, (module_name, flag)


def test_the_check_catches_a_plain_int_flag(capsys):
    """The test itself: type=int (argparse's English "invalid int value", no Bengali) and an untyped number fail."""
    parser = argparse.ArgumentParser(prog="demo")
    parser.add_argument("--steps", type=int)
    line = _refusal(parser, ["--steps=abc"], capsys)
    assert not BENGALI.search(line)
    assert _kind("demo", "--steps", parser._actions[-1]) is None
    parser.add_argument("--lr", type=cli.positive_float)
    assert BENGALI.search(_refusal(parser, ["--lr=nan"], capsys))
    with pytest.raises(pytest.fail.Exception, match="taken"):
        _refusal(parser, ["--lr=0.1"], capsys)
