"""The libraries that decide a model's tokens behave as the tested releases did.

jieba and rjieba cut Chinese into the words a model counts, OpenCC folds
Traditional characters, and spamnb replaces parts of jieba's Tokenizer
(jiebaload.py).  A release that cuts or folds otherwise would change every
model without a word, so pyproject.toml pins them to the tested range and
these tests fail, naming the library, when what is installed differs.
"""

import tomllib
from importlib.metadata import version

import pytest
from packaging.requirements import Requirement

from conftest import ROOT

PINNED = ("jieba", "rjieba", "opencc")

# What jieba 0.42.1 and rjieba 0.2.2 cut these into (the HMM's unknown words
# included: 和小红, 北京天安门广场), and what OpenCC 1.4.2's t2s plus spamnb's
# table fold these into.
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


@pytest.mark.parametrize("name", PINNED)
def test_installed_release_is_in_the_pinned_range(name):
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    requirement = next(Requirement(line) for line in declared if Requirement(line).name.lower() == name)
    assert requirement.specifier, f"{name} is not pinned in pyproject.toml"
    assert version(name) in requirement.specifier, \
        f"{name} {version(name)} is outside the tested range {requirement.specifier}"


def test_jieba_still_has_the_internals_spamnb_replaces():
    import jieba

    for name in ("get_DAG", "calc", "_Tokenizer__cut_DAG", "gen_pfdict"):
        assert callable(getattr(jieba.Tokenizer, name, None)), f"jieba.Tokenizer.{name} is gone"


@pytest.mark.parametrize("text", CUTS)
def test_jieba_and_rjieba_cut_as_the_tested_releases(text):
    import jieba
    import rjieba

    assert jieba.lcut(text) == CUTS[text], "jieba cuts otherwise than 0.42.1"
    assert rjieba.cut(text) == CUTS[text], "rjieba cuts otherwise than 0.2.2"


def test_opencc_and_the_variant_table_fold_as_tested():
    from spamnb.text.variants import fold_variants

    for text, folded in FOLDS.items():
        assert fold_variants(text) == folded
