"""spamnb.jsoncodec gives what json gives, to the byte, for everything spamnb writes and reads."""

import json
import math
import random
import subprocess
import sys

import pytest

from spamnb import jsoncodec


def _value(rnd: random.Random, depth: int = 0):
    kinds = ["int", "float", "str", "bool", "none"] + (["list", "dict"] if depth < 3 else [])
    kind = rnd.choice(kinds)
    if kind == "int":
        return rnd.choice([0, -1, 7, 2**63 - 1, -(2**70), rnd.randint(-10**6, 10**6)])
    if kind == "float":
        return rnd.choice([0.0, -0.0, 1e-300, 1.5e308, 0.1 + 0.2, rnd.uniform(-1e6, 1e6), math.pi])
    if kind == "str":
        return "".join(rnd.choice(["a", "é", "中", "\n", '"', "\\", "\x00", "\ud83d", "😀", " ", "\udcff"])
                       for _ in range(rnd.randint(0, 8)))
    if kind == "bool":
        return rnd.random() < 0.5
    if kind == "none":
        return None
    if kind == "list":
        return [_value(rnd, depth + 1) for _ in range(rnd.randint(0, 4))]
    return {_value(rnd, 3) if rnd.random() < 0.8 else rnd.randint(0, 9): _value(rnd, depth + 1)
            for _ in range(rnd.randint(0, 4))}


@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("sort_keys", [True, False])
def test_dumps_is_json_dumps(ensure_ascii, sort_keys):
    rnd = random.Random(f"{ensure_ascii}{sort_keys}")
    for _ in range(3000):
        value = _value(rnd)
        if sort_keys and isinstance(value, dict) and len({type(k) for k in value}) > 1:
            continue  # json cannot sort str against int keys either
        try:
            expected = json.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys, allow_nan=False)
        except TypeError:
            with pytest.raises(TypeError):
                jsoncodec.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys, allow_nan=False)
            continue
        assert jsoncodec.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys, allow_nan=False) == expected


def test_loads_is_json_loads():
    rnd = random.Random(5)
    for _ in range(3000):
        text = json.dumps(_value(rnd), ensure_ascii=rnd.random() < 0.5)
        padded = rnd.choice(["", " ", "\n", " \t\r\n"]) + text + rnd.choice(["", "\n", "  "])
        assert jsoncodec.loads(padded) == json.loads(padded)
        if padded.isascii():
            assert jsoncodec.loads(padded.encode("ascii")) == json.loads(padded.encode("ascii"))


def test_not_finite_floats():
    assert jsoncodec.dumps([math.inf, -math.inf]) == json.dumps([math.inf, -math.inf]) == "[Infinity, -Infinity]"
    with pytest.raises(ValueError):
        jsoncodec.dumps({"x": math.nan}, allow_nan=False)
    assert math.isnan(jsoncodec.loads("NaN")) and jsoncodec.loads("[-Infinity]") == [-math.inf]


@pytest.mark.parametrize("text", ["", " ", "{", '{"a": 1} x', "[1,]", "{'a': 1}", "nul", '"\\ud800', "1 2",
                                  b"\xff\xfe{}", '{"a": 1}}', "[" * 100000 + "]" * 100000])
def test_not_json_is_a_value_error(text):
    with pytest.raises((ValueError, RecursionError)) as raised:
        jsoncodec.loads(text)
    with pytest.raises(type(raised.value) if raised.type is RecursionError else ValueError):
        json.loads(text)


def test_error_after_error_leaves_no_trace():
    """A failed dumps (a circular value) does not poison the next call."""
    circular: list = []
    circular.append(circular)
    with pytest.raises(ValueError):
        jsoncodec.dumps(circular)
    assert jsoncodec.dumps([[1], [1]]) == "[[1], [1]]"


def test_no_json_or_re_imported():
    """The reason for the module: importing it (and the scoring client's modules) loads neither."""
    code = ("import sys; import spamnb.jsoncodec, spamnb.app.server, spamnb.app.render, spamnb.mail.sources; "
            "print(sorted(m for m in ('json', 're', 'enum', 'socket') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_error_position_memoryview_and_other_types():
    with pytest.raises(ValueError, match="character 3"):
        jsoncodec.loads("[1,]")
    assert jsoncodec.loads(memoryview(b'{"a": [1, 2.5]}')) == {"a": [1, 2.5]}
    assert jsoncodec.loads('"\u4e2d"'.encode()) == "\u4e2d"  # UTF-8 bytes
    with pytest.raises(TypeError):
        jsoncodec.loads(12)
