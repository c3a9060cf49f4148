"""What decides a model's Chinese tokens stays as tested.

The core (spamnb._core) cuts Chinese with jieba-rs over jieba 0.42.1's
dictionary and folds Traditional characters with OpenCC 1.4.2's t2s
dictionaries, both compiled in (core/data/, built by tools/zh_core_tables.py).
What pins them is core/Cargo.lock (the crate) and the committed tables;
jieba and OpenCC themselves are test-only oracles ([test] extra), pinned to
the releases the tables were taken from.  A change that cuts or folds
otherwise would change every model without a word: these tests fail,
naming what changed.
"""

import subprocess
import sys
import tomllib
from importlib.metadata import version

import pytest
from packaging.requirements import Requirement

from conftest import ROOT
from spamnb import _core

ORACLES = ("jieba", "opencc")

# What jieba 0.42.1 cuts these into (the HMM's unknown words included:
# 和小红, 北京天安门广场), and what OpenCC 1.4.2's t2s plus spamnb's table fold these into.
CUTS = {
    "本公司长期代开各地区增值税专用发票普通发票点数优惠欢迎来电咨询":
        ["本", "公司", "长期", "代开", "各", "地区", "增值税", "专用发票", "普通发票", "点数", "优惠",
         "欢迎", "来电", "咨询"],
    "马上就要过年了小明和小红去北京天安门广场看升旗":
        ["马上", "就要", "过年", "了", "小明", "和小红", "去", "北京天安门广场", "看", "升旗"],
    "我们在2024年办理ABC发票，请联系QQ":
        ["我们", "在", "2024", "年", "办理", "ABC", "发票", "，", "请", "联系", "QQ"],
}
FOLDS = {"頭髮乾燥皇后著名於菟乾隆臺灣涐司岢办理規髮票": "头发干燥皇后著名於菟乾隆台湾我司可办理规发票"}


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_jieba_rjieba_and_opencc_are_not_runtime_dependencies():
    names = {Requirement(line).name.lower() for line in pyproject()["dependencies"]}
    assert not names & {"jieba", "rjieba", "opencc"}, names


@pytest.mark.parametrize("name", ORACLES)
def test_installed_oracle_is_in_the_pinned_range(name):
    declared = pyproject()["optional-dependencies"]["test"]
    requirement = next(Requirement(line) for line in declared if Requirement(line).name.lower() == name)
    assert requirement.specifier, f"{name} is not pinned in the [test] extra"
    assert version(name) in requirement.specifier, \
        f"{name} {version(name)} is outside the tested range {requirement.specifier}"


def test_cargo_lock_pins_the_tested_jieba_rs():
    lock = tomllib.loads((ROOT / "core" / "Cargo.lock").read_text())
    versions = {package["name"]: package["version"] for package in lock["package"]}
    assert versions.get("jieba-rs") == "0.11.0", "jieba-rs is not the tested 0.11.0 in core/Cargo.lock"


@pytest.mark.parametrize("text", CUTS)
def test_core_and_jieba_cut_as_the_tested_releases(text):
    import jieba

    assert _core.segment(text) == CUTS[text], "the core cuts otherwise than jieba 0.42.1"
    assert jieba.lcut(text) == CUTS[text], "jieba cuts otherwise than 0.42.1"


def test_core_folds_as_tested():
    for text, folded in FOLDS.items():
        assert _core.fold_variants(text) == folded


def test_compiled_in_tables_are_those_of_the_oracle_releases():
    # Rebuilds core/data/jieba_dict.txt and opencc_t2s.txt from the installed
    # jieba and opencc wheels and compares them with the committed ones.
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "zh_core_tables.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
