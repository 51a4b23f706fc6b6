"""One vocabulary for the API, the config and the command line (review 9, findings 7 and 11).

Why these tests: each finding was a place where one interface said something the others did
not, or blamed the wrong thing: a keyword refused by ``score()`` when the user called ``learn()``,
``gobnilp-py run`` errors saying "command line" for ``gp.run`` keywords, ``--ess`` quoting ``0.0``
where the API quotes ``0``, ``load_result`` refusing the folder ``enumerate -o`` wrote, a data file
given to ``run`` read as a settings file, and ``--check`` passing a config whose method cannot take
its ``[scip]`` section.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import gobnilp_py as gp
from gobnilp_py.cli import main
from gobnilp_py.errors import ConfigError, DataError, ParameterError, ParameterTypeError
from gobnilp_py.examples import example_path
from gobnilp_py.solve.keywords import check_keywords

ROOT = Path(__file__).resolve().parents[1]
ASIA = str(example_path("asia"))


def _cli(argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small_csv(tmp_path: Path) -> Path:
    rows = gp.read_data(ASIA).codes[:200, :4]
    p = tmp_path / "small.csv"
    p.write_text("a,b,c,d\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    return p


# ------------------------------------------------------------------ finding 7: --check and the method
def test_check_refuses_scip_with_a_method_that_takes_none(tmp_path, capsys):
    cfg = ROOT / "configs" / "learn.toml"
    code, out, err = _cli(["run", cfg, "--method", "ordergraph", "--check"], capsys)
    assert code == 1 and out == ""
    assert err.strip() == f"gobnilp-py: error: {cfg}: [scip] does not apply to --method ordergraph (only to ilp)"


def test_shipped_learn_config_still_checks_ok(capsys):
    code, out, _ = _cli(["run", ROOT / "configs" / "learn.toml", "--check"], capsys)
    assert code == 0 and ": OK: job learn" in out


def test_auto_method_line_names_scip_parameters_not_params(small_csv):
    net = gp.learn(small_csv, params={"limits/nodes": 1000})
    assert net.stats["method"] == "ilp"
    reason = net.stats["method_reason"]
    assert reason == "it takes the SCIP parameters given; ordergraph does not"
    assert "params" not in reason


# ------------------------------------------------------------------ 11 (a): unknown keywords
@pytest.mark.parametrize("function, options, expected", [
    ("learn", {"max_networks": 3},
     "learn() got an unexpected keyword argument 'max_networks' (enumerate_networks() and kbest() take it)"),
    ("enumerate_networks", {"max_network": 3},
     "enumerate_networks() got an unexpected keyword argument 'max_network' (did you mean max_networks?)"),
    ("enumerate_networks", {"seed": 1}, "enumerate_networks() got an unexpected keyword argument 'seed' "
                                        "(learn() takes it)"),
    ("learn", {"hedaer": False}, "learn() got an unexpected keyword argument 'hedaer' (did you mean header?)"),
])
def test_unknown_keyword_names_the_function_called(function, options, expected):
    with pytest.raises(ParameterTypeError) as info:
        check_keywords(function, options)
    assert str(info.value) == expected
    assert isinstance(info.value, TypeError)  # what Python raises for an unexpected keyword


def test_known_keywords_pass():
    check_keywords("learn", {"header": False, "ess": 2, "palim": 2, "candidate_limit": 5, "lower_bound": "auto"})
    check_keywords("enumerate_networks", {"delimiter": ",", "n_jobs": 1, "prune": True})
    check_keywords("kbest", {"arities": [2, 2], "backend": "serial"})


@pytest.mark.parametrize("call, name", [
    (lambda d: gp.learn(d, max_networks=3), "learn"),
    (lambda d: gp.enumerate_networks(d, bayes_factor=3, max_network=3), "enumerate_networks"),
    (lambda d: gp.kbest(d, 2, seed=1), "kbest"),
])
def test_drivers_blame_themselves_for_an_unknown_keyword(call, name, small_csv):
    with pytest.raises(ParameterTypeError, match=rf"^{name}\(\) got an unexpected keyword argument"):
        call(small_csv)


# ------------------------------------------------------------------ 11 (b): score reads like the drivers
def test_score_reads_with_the_drivers_keywords(tmp_path):
    p = tmp_path / "nohead.csv"
    p.write_text("0,1\n1,0\n1,1\n0,0\n")
    table = gp.score(p, header=False, delimiter=",")
    assert table.names == ("0", "1") and table.meta["N"] == 4
    ds = gp.read_data(p, header=False)
    assert gp.score(ds).to_jkl() == table.to_jkl()
    with pytest.raises(ParameterError, match=r"cannot apply to a Dataset"):
        gp.score(ds, header=False)
    with pytest.raises(ParameterTypeError, match=r"^score\(\) got an unexpected keyword argument 'hedaer' "
                                                 r"\(did you mean header\?\)"):
        gp.score(p, hedaer=False)
    with pytest.raises(ParameterTypeError, match=r"^score\(\) got an unexpected keyword argument 'max_networks' "
                                                 r"\(enumerate_networks\(\) and kbest\(\) take it\)"):
        gp.score(p, header=False, max_networks=3)


def test_score_accepts_header_like_learn(tmp_path):
    p = tmp_path / "nohead.csv"
    p.write_text("0,1,0\n1,0,1\n1,1,0\n0,0,1\n" * 5)
    table = gp.score(p, header=False)
    assert table.names == ("0", "1", "2")


# ------------------------------------------------------------------ 11 (c): gp.run keywords
def _learn_toml(tmp_path: Path, data: Path) -> Path:
    cfg = tmp_path / "l.toml"
    cfg.write_text(f'[data]\npath = "{data}"\n[search]\njob = "learn"\n')
    return cfg


def test_run_takes_header_like_learn(tmp_path, small_csv):
    nohead = tmp_path / "nohead.csv"
    nohead.write_text("\n".join(small_csv.read_text().splitlines()[1:]) + "\n")
    res = gp.run(_learn_toml(tmp_path, nohead), header=False)
    assert res.result.names == ("0", "1", "2", "3")
    assert res.result == gp.learn(nohead, header=False)


def test_run_unknown_keyword_suggests_the_closest(tmp_path, small_csv):
    with pytest.raises(ConfigError, match=r"^run\(\): unknown keyword 'heder' \(did you mean header\?\)"):
        gp.run(_learn_toml(tmp_path, small_csv), heder=False)


def test_run_errors_name_run_not_the_command_line(tmp_path, small_csv):
    cfg = _learn_toml(tmp_path, small_csv)
    with pytest.raises(ConfigError) as info:
        gp.run(cfg, time_limit=0)
    assert str(info.value) == "run(): time_limit must be a number > 0 (seconds), got 0"
    with pytest.raises(ConfigError, match=r"^run\(\): params\['limits/nodez'\] is not a SCIP parameter "
                                          r"\(did you mean limits/nodes\?\)"):
        gp.run(cfg, params={"limits/nodez": 5})
    with pytest.raises(ConfigError, match=r'^run\(\): params does not apply to method="dp" \(only to ilp\)$'):
        gp.run(cfg, method="dp", params={"limits/nodes": 5})


# ------------------------------------------------------------------ 11 (d): the same words everywhere
def _api_problem(fn) -> str:
    with pytest.raises(ParameterError) as info:
        fn()
    return str(info.value)


def test_ess_zero_has_the_same_words_in_api_and_cli(small_csv, capsys):
    api = _api_problem(lambda: gp.learn(small_csv, score="BDeu", ess=0))
    code, _, err = _cli(["learn", small_csv, "--score", "BDeu", "--ess", "0"], capsys)
    assert code == 1
    assert api == "ess must be a number > 0, got 0"
    assert err.strip() == "gobnilp-py: error: --ess must be a number > 0, got 0"


def test_delimiter_has_the_same_words_in_api_and_cli(small_csv, capsys):
    with pytest.raises(gp.GobnilpError) as info:
        gp.learn(small_csv, delimiter="ab")
    code, _, err = _cli(["learn", small_csv, "--delimiter", "ab"], capsys)
    assert code == 1
    assert str(info.value) == 'delimiter must be one character (or "tab"), got "ab"'
    assert err.strip() == 'gobnilp-py: error: --delimiter must be one character (or "tab"), got "ab"'


@pytest.mark.parametrize("argv, expected", [
    (["learn", "{csv}", "--time-limit", "0"], "--time-limit must be a number > 0 (seconds), got 0"),
    (["learn", "{csv}", "--gap", "-1"], "--gap must be a number >= 0, got -1"),
    (["enumerate", "{csv}", "--bf", "0"], "--bf must be a number >= 1, got 0"),
])
def test_number_flags_quote_the_value_as_written(argv, expected, small_csv, capsys):
    code, _, err = _cli([a.format(csv=small_csv) for a in argv], capsys)
    assert code == 1 and err.strip() == f"gobnilp-py: error: {expected}"


# ------------------------------------------------------------------ 11 (e): load_result on an -o folder
def test_load_result_reads_an_enumerate_output_folder(tmp_path, small_csv, capsys):
    folder = tmp_path / "enum-out"
    code, _, _ = _cli(["enumerate", small_csv, "--bf", "3", "-o", folder, "-q"], capsys)
    assert code == 0 and not (folder / "result.json").exists()
    loaded = gp.load_result(folder)
    assert loaded.guarantee == gp.load_result(folder / "summary.json").guarantee
    assert len(loaded) == len(gp.enumerate_networks(small_csv, bayes_factor=3))


def test_load_result_on_a_folder_without_a_result_names_both_files(tmp_path):
    with pytest.raises(DataError, match=r"holds no result \(result.json or summary.json\)"):
        gp.load_result(tmp_path)


# ------------------------------------------------------------------ 11 (f): run given a data file
@pytest.mark.parametrize("name, text", [("iris.csv", "0,1,0,0,0\n1,0,1,1,0\n"),
                                        ("numbers.txt", "0 1 0\n1 0 1\n"),
                                        ("named.dat", "a b c\n0 1 0\n")])
def test_run_on_a_data_file_says_to_use_learn(name, text, tmp_path, capsys):
    p = tmp_path / name
    p.write_text(text)
    code, out, err = _cli(["run", p], capsys)
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.strip().endswith(f"{name} looks like a data file: run takes a config file (TOML or GOBNILP "
                                f"settings); to learn from a data file use `gobnilp-py learn {p}`")


def test_a_malformed_settings_line_gets_no_data_hint(tmp_path, capsys):
    p = tmp_path / "g.set"
    p.write_text("gobnilp/scoring/palim 3\n")
    code, _, err = _cli(["run", p], capsys)
    assert code == 1 and "expected name = value" in err and "data file" not in err


@pytest.mark.parametrize("kw, words", [
    ({"palim": -1}, 'palim must be an integer >= 0 or "auto", got -1'),
    ({"memory_limit": 0}, "memory_limit must be a number >= 1 (bytes), got 0"),
    ({"lower_bound": "x"}, 'lower_bound must be a number or "auto", got "x"'),
    ({"max_candidates": 0}, "max_candidates must be an integer >= 1, got 0"),
])
def test_score_refuses_with_the_shared_words(kw, words, small_csv):
    """score() says what the config's [scoring] section and the command line say (without their prefixes)."""
    from gobnilp_py import ScoreError

    with pytest.raises(ScoreError) as info:
        gp.score(small_csv, **kw)
    assert str(info.value) == words
