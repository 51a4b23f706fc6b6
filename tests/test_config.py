"""Run configs: every broken config or settings file fails before any work, in one line, leaving no files.

Also: layering (settings file < TOML < command line), relative paths, the
GOBNILP settings mapping (prunegap's sign), and the docs listing every key.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gobnilp_py.cli import main
from gobnilp_py.config import SPECS, load_config, parse_override, read_settings_file
from gobnilp_py.errors import ConfigError
from gobnilp_py.examples import example_path

ROOT = Path(__file__).resolve().parents[1]
ASIA = str(example_path("asia"))

GOOD = f'''
[data]
path = "{ASIA}"
[search]
job = "enumerate"
bayes_factor = 3
'''

LEARN = f'''
[data]
path = "{ASIA}"
[search]
job = "learn"
'''


def _tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _toml(body: str) -> str:
    return body.replace("@ASIA@", ASIA)


# name -> (files to write (name -> text), extra argv, expected part of the one-line message)
BROKEN: dict[str, tuple[dict[str, str], list[str], str]] = {
    "unknown key": ({"c.toml": GOOD.replace("bayes_factor", "bayes_facter")}, [],
                    "c.toml: [search] bayes_facter is not a known key (did you mean bayes_factor?)"),
    "unknown section": ({"c.toml": GOOD + "[serch]\nk = 3\n"}, [], "unknown section [serch] (did you mean search?)"),
    "unknown top-level key": ({"c.toml": "titel = 'x'\n" + GOOD}, [], "unknown key titel (did you mean title?)"),
    "bf not a number": ({"c.toml": GOOD.replace("bayes_factor = 3", 'bayes_factor = "abc"')}, [],
                        'c.toml: [search] bayes_factor must be a number >= 1, got "abc"'),
    "bf below 1": ({"c.toml": GOOD.replace("bayes_factor = 3", "bayes_factor = 0.5")}, [],
                   "[search] bayes_factor must be a number >= 1, got 0.5"),
    "bf and epsilon": ({"c.toml": GOOD + "epsilon = 1.0\n"}, [],
                       "give either [search] bayes_factor or [search] epsilon, not both"),
    "enumerate without bf": ({"c.toml": GOOD.replace("bayes_factor = 3", "")}, [],
                             'job "enumerate" needs [search] bayes_factor (>= 1) or epsilon (>= 0)'),
    "kbest without k": ({"c.toml": GOOD.replace('"enumerate"', '"kbest"').replace("bayes_factor = 3", "")}, [],
                        'job "kbest" needs [search] k'),
    "kbest with bf": ({"c.toml": GOOD.replace('"enumerate"', '"kbest"') + "k = 3\n"}, [],
                      '[search] bayes_factor does not apply to job "kbest"'),
    "k zero": ({"c.toml": GOOD.replace('"enumerate"', '"kbest"').replace("bayes_factor = 3", "k = 0")}, [],
               "[search] k must be an integer >= 1, got 0"),
    "job typo": ({"c.toml": GOOD.replace('"enumerate"', '"enumerat"')}, [], '(did you mean "enumerate"?)'),
    "missing data file": ({"c.toml": GOOD.replace(ASIA, "nothere.csv")}, [],
                          "[data] path names a file that does not exist"),
    "no data path": ({"c.toml": "[search]\nbayes_factor = 3\n"}, [], "[data] path is required"),
    "unknown example": ({"c.toml": GOOD.replace(ASIA, "example:alarm")}, [], 'names unknown example "example:alarm"'),
    "missing constraints file": ({"c.toml": GOOD + '[constraints]\nfile = "none.con"\n'}, [],
                                 "[constraints] file names a file that does not exist"),
    "constraints key typo": ({"c.toml": GOOD + '[constraints]\nforbiden_arrows = [["asia", "tub"]]\n'}, [],
                             "[constraints] forbiden_arrows is not a constraints key (did you mean forbidden_arrows?)"),
    "bad constraint item": ({"c.toml": GOOD + '[constraints]\nrequired_arrows = ["asia=>tub"]\n'}, [],
                            "[constraints] required_arrows is invalid"),
    "bad constraints file": ({"c.toml": GOOD + '[constraints]\nfile = "bad.con"\n', "bad.con": "asia <=> tub\n"}, [],
                             "[constraints] file is invalid"),
    "unknown score": ({"c.toml": GOOD + '[scoring]\nscore = "K3"\n'}, [],
                      '[scoring] score must be one of "BIC", "AIC", "BDeu", "K2", "BDs", "bic-g", "aic-g", "bge", got "K3"'),
    "ess zero": ({"c.toml": GOOD + "[scoring]\ness = 0\n"}, [], "[scoring] ess must be a number > 0, got 0"),
    "palim negative": ({"c.toml": GOOD + "[scoring]\npalim = -1\n"}, [], '[scoring] palim must be an integer >= 0 or "auto", got -1'),
    "palim fractional": ({"c.toml": GOOD + "[scoring]\npalim = 2.5\n"}, [], 'palim must be an integer >= 0 or "auto", got 2.5'),
    "prune off without palim": ({"c.toml": GOOD + "[scoring]\nprune = false\n"}, [],
                                "[scoring] prune = false needs [scoring] palim"),
    "delimiter too long": ({"c.toml": GOOD.replace("[data]\n", '[data]\ndelimiter = ";;"\n')}, [],
                           '[data] delimiter must be one character (or "tab"), got ";;"'),
    "arities wrong type": ({"c.toml": GOOD.replace("[data]\n", '[data]\narities = "2,2"\n')}, [],
                           "[data] arities must be a list of integers >= 1"),
    "time limit string": ({"c.toml": GOOD + '[limits]\ntime_limit = "10s"\n'}, [],
                          '[limits] time_limit must be a number > 0 (seconds), got "10s"'),
    "max_networks for learn": ({"c.toml": GOOD.replace('"enumerate"', '"learn"') + "[limits]\nmax_networks = 5\n"},
                               [], '[limits] max_networks does not apply to job "learn"'),
    "gap for enumerate": ({"c.toml": GOOD + "[limits]\ngap = 0.01\n"}, [], '[limits] gap does not apply to job "enumerate"'),
    "scip unknown parameter": ({"c.toml": GOOD + '[scip]\n"limits/nodez" = 5\n'}, [],
                               "[scip] limits/nodez is not a SCIP parameter (did you mean limits/nodes?)"),
    "scip wrong type": ({"c.toml": GOOD + '[scip]\n"limits/nodes" = "many"\n'}, [],
                        '[scip] limits/nodes must be an integer (SCIP\'s default is -1), got "many"'),
    "scip protected": ({"c.toml": GOOD + '[scip.misc]\nusesymmetry = 1\n'}, [],
                       '[scip] misc/usesymmetry cannot be changed for job "enumerate"'),
    "scip time limit": ({"c.toml": GOOD + '[scip]\n"limits/time" = 5.0\n'}, [],
                        "[scip] limits/time is set by [limits] time_limit; use that key"),
    "picture for score job": ({"c.toml": GOOD.replace('"enumerate"', '"score"')
                               + '[output]\nwrite = ["pictures"]\n'}, [],
                              'asks for "pictures", which job "score" does not produce'),
    "output name typo": ({"c.toml": GOOD + '[output]\nwrite = ["jason"]\n'}, [],
                         '[output] write has unknown output "jason" (did you mean "json"?)'),
    "report format": ({"c.toml": GOOD + '[output]\nreport_format = "pdf"\n'}, [],
                      '[output] report_format must be one of "markdown", "html", got "pdf"'),
    "foreign output dir": ({"c.toml": GOOD + '[output]\ndir = "mine"\n', "mine/notes.txt": "keep me\n"}, [],
                           "holds 'notes.txt', which gobnilp-py did not write"),
    "invalid toml": ({"c.toml": "[data\npath = 1\n"}, [], "c.toml: not valid TOML"),
    "missing config": ({}, [], "config file not found"),
    "scoring options on a table": ({"c.toml": GOOD.replace(ASIA, "t.jkl") + '[scoring]\nscore = "BDeu"\n',
                                    "t.jkl": "2\nA 1\n-1.0 0\nB 1\n-2.0 0\n"}, [],
                                   "[scoring] score cannot apply: [data] path t.jkl is a score table"),
    "settings key missing file": ({"c.toml": 'settings = "none.set"\n' + GOOD}, [],
                                  "c.toml: settings names a file that does not exist"),
    "cli override bad value": ({"c.toml": GOOD}, ["--set", "search.bayes_factor=abc"],
                               'command line: --set search.bayes_factor must be a number >= 1, got "abc"'),
    "cli override unknown section": ({"c.toml": GOOD}, ["--set", "serch.k=3"],
                                     "command line: --set serch.k: unknown section 'serch'"),
    "cli bf below 1": ({"c.toml": GOOD}, ["--bf", "0.2"], "command line: --bf must be a number >= 1, got 0.2"),
    # A method given by name must take the options given (review 9, finding 7): caught before any work,
    # in the file's words, not after scoring as "option 'params' does not apply to method ..."
    "scip with --method ordergraph": ({"c.toml": LEARN + '[scip]\n"separating/maxrounds" = 20\n'},
                                      ["--method", "ordergraph"],
                                      "c.toml: [scip] does not apply to --method ordergraph (only to ilp)"),
    "scip with [search] method": ({"c.toml": GOOD.replace('"enumerate"', '"kbest"').replace("bayes_factor = 3", "k = 2")
                                   + 'method = "dp"\n[scip]\n"separating/maxrounds" = 20\n'}, [],
                                  'c.toml: [scip] does not apply to [search] method = "dp" (only to ilp, resolve)'),
    "scip by --set with ordergraph": ({"c.toml": LEARN + 'method = "ordergraph"\n'},
                                      ["--set", "scip.separating/maxrounds=20"],
                                      'command line: --set scip.separating/maxrounds does not apply to [search] method '
                                      '= "ordergraph" in '),
    "verbose with dp": ({"c.toml": LEARN + "verbose = true\n"}, ["--method", "dp"],
                        "c.toml: [search] verbose does not apply to --method dp (only to ilp)"),
    "gap with ordergraph": ({"c.toml": LEARN + "[limits]\ngap = 0.01\n"}, ["--method", "ordergraph"],
                            "c.toml: [limits] gap does not apply to --method ordergraph (only to ilp)"),
    "seed without asobs": ({"c.toml": LEARN + "seed = 3\n"}, [],
                           'c.toml: [search] seed applies only to [search] method = "asobs", which auto never '
                           'picks; give [search] method = "asobs"'),
    "scip with order": ({"c.toml": LEARN + 'order = ["asia", "smoke", "tub", "lung", "bronc", "either", "xray", '
                         '"dysp"]\n[scip]\n"separating/maxrounds" = 20\n'}, [],
                        "c.toml: [scip] does not apply with [search] order: the fixed-order search runs no solver"),
    "by class with ordergraph": ({"c.toml": GOOD}, ["--method", "ordergraph", "--by", "class"],
                                 "command line: --method ordergraph cannot collect by equivalence class (--by class); "
                                 'methods that can: "ilp"'),
    "constraint kind ordergraph": ({"c.toml": GOOD + 'method = "ordergraph"\n[constraints]\n'
                                    'required_immoralities = [["asia", "either", "smoke"]]\n'}, [],
                                   'c.toml: [search] method = "ordergraph" cannot honour the structural constraint '
                                   "required_immoralities"),
    # GOBNILP settings files
    "settings malformed line": ({"g.set": "gobnilp/scoring/palim 3\n"}, ["--data", ASIA],
                                "g.set:1: cannot read 'gobnilp/scoring/palim 3'; expected name = value"),
    "settings positive prunegap": ({"g.set": "gobnilp/scoring/prunegap = 1.5\n"}, ["--data", ASIA],
                                   "g.set:1: gobnilp/scoring/prunegap = 1.5 > 0 would prune"),
    "settings BGe": ({"g.set": 'gobnilp/scoring/score_type = "BGe"\n'}, ["--data", ASIA], "continuous data"),
    "settings palim type": ({"g.set": "# comment\ngobnilp/scoring/palim = abc\n"}, ["--data", ASIA],
                            'g.set:2: gobnilp/scoring/palim ([scoring] palim) must be an integer >= 0 or "auto", got "abc"'),
    "settings unterminated string": ({"g.set": 'gobnilp/scoring/score_type = "BDeu\n'}, ["--data", ASIA],
                                     "g.set:1: gobnilp/scoring/score_type has an unterminated string"),
    "settings without data": ({"g.set": "gobnilp/scoring/palim = 2\n"}, [], "[data] path is required (or give --data FILE)"),
    "settings scip type": ({"g.set": "limits/time = soon\n"}, ["--data", ASIA],
                           'limits/time ([limits] time_limit) must be a number > 0 (seconds), got "soon"'),
}

# Fail after reading the data but before scoring (they need the variable names): run with -q.
AFTER_READING: dict[str, tuple[dict[str, str], list[str], str]] = {
    "constraint names an unknown variable": ({"c.toml": GOOD + '[constraints]\nforbidden_arrows = [["asia", "cancer"]]\n'},
                                             ["-q"], "cancer"),
    "arities for too few columns": ({"c.toml": GOOD.replace("[data]\n", "[data]\narities = [2, 2]\n")}, ["-q"],
                                    "arit"),
    "min_edges above max_edges": ({"c.toml": GOOD + "[constraints]\nmin_edges = 10\nmax_edges = 5\n"}, ["-q"],
                                  "c.toml: [constraints] min_edges=10 is greater than max_edges=5"),
}


BROKEN["verify with an approximate method"] = (
    {"c.toml": LEARN + 'method = "asobs"\nverify = true\n'}, [],
    'c.toml: [search] method = "asobs" is approximate: [search] verify = true asks a second exact method')


@pytest.mark.parametrize("case", sorted(AFTER_READING))
def test_check_reads_the_data_and_refuses_what_a_run_would(case, tmp_path, capsys, no_work, monkeypatch):
    """``run --check`` reads the data, so what needs its names or width fails there, in the same line."""
    files, _, expected = AFTER_READING[case]
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    before = _tree(tmp_path)
    code = main(["run", str(tmp_path / "c.toml"), "--check"])
    out, err = capsys.readouterr()
    assert code == 1 and not out
    assert len(err.strip().splitlines()) == 1 and expected in err, err
    assert _tree(tmp_path) == before


def test_enough_distinct_cases():
    assert len(BROKEN) >= 20
    assert len({msg for *_, msg in BROKEN.values()}) == len(BROKEN)


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if scoring or solving starts."""
    import gobnilp_py.output.job as runmod

    def forbidden(*args, **kwargs):
        raise AssertionError("work started despite a broken config")

    monkeypatch.setattr(runmod, "_execute", forbidden)
    return runmod


@pytest.mark.parametrize("case", sorted(BROKEN) + sorted(AFTER_READING))
def test_broken_config_fails_before_work(case, tmp_path, capsys, no_work, monkeypatch):
    files, extra, expected = BROKEN.get(case) or AFTER_READING[case]
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    cfg = next((n for n in files if n.endswith((".toml", ".set"))), "c.toml")
    before = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    code = main(["run", str(tmp_path / cfg), *extra, "--output-dir", str(tmp_path / "out")]
                if case != "foreign output dir" else ["run", str(tmp_path / cfg), *extra])
    out, err = capsys.readouterr()
    assert code == 1, (case, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("gobnilp-py: error: ")
    assert "Traceback" not in err
    assert expected in lines[0], lines[0]
    assert _tree(tmp_path) == before  # no output file, no staging folder


def test_settings_mapping_and_prunegap_sign(tmp_path, caplog):
    con = tmp_path / "k.con"
    con.write_text("~asia<-tub\n")
    s = tmp_path / "g.set"
    s.write_text('# GOBNILP settings\ngobnilp/scoring/score_type = "BDeu"\ngobnilp/scoring/alpha = 2\n'
                 "gobnilp/scoring/palim = 2\ngobnilp/scoring/prune = TRUE\ngobnilp/scoring/prunegap = -2.5\n"
                 'gobnilp/dagconstraintsfile = "k.con"\nlimits/time = 30\nlimits/gap = 0.0\n'
                 "gobnilp/countsols = TRUE\ngobnilp/countsols/sollimit = 1000\nseparating/maxrounds = 3\n"
                 'gobnilp/outputfile/solution = "best.txt"\ngobnilp/verbose/solvingstats = TRUE\n'
                 "gobnilp/scoring/names = TRUE   # header row\n")
    with caplog.at_level("WARNING", logger="gobnilp_py"):
        cfg = load_config(s, data=ASIA)
    v = cfg.values
    assert cfg.job == "enumerate"
    assert v["scoring"] == {"score": "BDeu", "ess": 2.0, "alpha_mu": None, "alpha_w": None, "nu": None,
                            "palim": 2, "prune": True, "max_candidates": None,
                            "memory_limit": None, "n_jobs": None, "backend": None, "scheduler": None,
                            "lower_bound": None}
    assert v["search"]["epsilon"] == 2.5 and cfg.epsilon == 2.5  # prunegap = -ln(BF) -> epsilon = ln(BF)
    assert v["limits"]["time_limit"] == 30.0 and v["limits"]["max_networks"] == 1000
    assert v["scip"] == {"separating/maxrounds": 3}
    assert Path(v["constraints"]["file"]) == con.resolve()
    assert cfg.constraints.forbidden_arrows == [("tub", "asia")]
    assert v["data"]["header"] is True
    assert any("gobnilp/verbose/solvingstats" in w for w in cfg.warnings)
    assert "gobnilp/verbose/solvingstats has no meaning" in caplog.text
    raw = read_settings_file(s)[1]
    assert raw["gobnilp/scoring/prunegap"] == -2.5


def test_settings_default_job_is_learn_and_nbns_is_kbest(tmp_path):
    s = tmp_path / "a.set"
    s.write_text("gobnilp/scoring/palim = 2\n")
    assert load_config(s, data=ASIA).job == "learn"
    s.write_text("gobnilp/nbns = 4\n")
    cfg = load_config(s, data=ASIA)
    assert cfg.job == "kbest" and cfg.values["search"]["k"] == 4


def test_layers_and_relative_paths(tmp_path):
    sub = tmp_path / "study"
    sub.mkdir()
    (sub / "d.csv").write_text(Path(ASIA).read_text())
    (sub / "base.set").write_text("gobnilp/scoring/palim = 1\ngobnilp/scoring/prunegap = -1\n")
    (sub / "c.toml").write_text('settings = "base.set"\n[data]\npath = "d.csv"\n[search]\njob = "enumerate"\n'
                                "bayes_factor = 3\n[scoring]\npalim = 2\n[output]\ndir = \"res\"\n")
    cfg = load_config(sub / "c.toml", [("search", "bayes_factor", 7.0, "--bf")], cwd=tmp_path)
    assert cfg.data_path == (sub / "d.csv").resolve()       # relative to the config's folder
    assert cfg.output_dir == (sub / "res").resolve()
    assert cfg.values["scoring"]["palim"] == 2                # TOML over settings file
    assert cfg.values["search"]["epsilon"] is None            # the TOML's BF replaced the settings' epsilon
    assert cfg.values["search"]["bayes_factor"] == 7.0        # command line over TOML
    assert math.isclose(cfg.epsilon, math.log(7.0))
    cfg2 = load_config(sub / "c.toml", [("output", "dir", "elsewhere", "--output-dir")], cwd=tmp_path)
    assert cfg2.output_dir == (tmp_path / "elsewhere").resolve()  # command-line paths: the working folder
    assert cfg.origins["search.bayes_factor"] == "command line"


def test_no_output_section_writes_nothing_and_defaults(tmp_path):
    (tmp_path / "c.toml").write_text(GOOD)
    cfg = load_config(tmp_path / "c.toml")
    assert cfg.output_dir is None and cfg.outputs == ()
    (tmp_path / "c.toml").write_text(GOOD + "[output]\nwrite = ['all']\n")
    cfg = load_config(tmp_path / "c.toml")
    assert cfg.output_dir == tmp_path.resolve() / "c-out"
    assert "scores_png" in cfg.outputs and "report" in cfg.outputs


def test_parse_override():
    assert parse_override("search.bayes_factor=20") == ("search", "bayes_factor", 20)
    assert parse_override("scip.limits/nodes=5") == ("scip", "limits/nodes", 5)
    assert parse_override("scoring.score=BDeu") == ("scoring", "score", "BDeu")
    assert parse_override('constraints.tiers=[["a"],["b"]]') == ("constraints", "tiers", [["a"], ["b"]])
    with pytest.raises(ConfigError):
        parse_override("search.k")


def test_check_flag_validates_without_work(tmp_path, capsys, no_work):
    (tmp_path / "c.toml").write_text(GOOD)
    assert main(["run", str(tmp_path / "c.toml"), "--check"]) == 0
    out = capsys.readouterr().out
    assert "OK: job enumerate" in out and "rows x 8 variables" in out      # the data was read and checked


def test_docs_list_every_key():
    text = (ROOT / "docs" / "configuration.md").read_text()
    for spec in SPECS:
        if spec.key != "*":
            assert f"`{spec.key}`" in text, spec.label
    from gobnilp_py.config import SETTINGS_MAP

    for name in SETTINGS_MAP:
        assert name in text, name


def test_every_config_validates():
    configs = sorted((ROOT / "configs").glob("*.toml"))
    assert {p.stem for p in configs} >= {"score", "learn", "enumerate", "kbest"}
    for p in configs:
        cfg = load_config(p)
        assert cfg.job in p.stem or p.stem not in ("score", "learn", "enumerate", "kbest")


# ------------------------------------------------- file-naming SCIP parameters
def test_file_params_are_scips_own_list():
    """The refused parameters are exactly the file-naming string parameters SCIP describes (derived, not typed)."""
    from gobnilp_py._scip_params import FILE_PARAMS, derive_file_params

    assert derive_file_params() == FILE_PARAMS
    assert {"visual/vbcfilename", "visual/bakfilename"} <= FILE_PARAMS


@pytest.mark.parametrize("name", sorted(__import__("gobnilp_py._scip_params", fromlist=["x"]).FILE_PARAMS))
def test_every_file_param_is_refused_everywhere(name, tmp_path, capsys):
    from gobnilp_py._scip_params import check_scip_params
    from gobnilp_py.errors import ParameterError

    target = tmp_path / "written-by-scip"
    with pytest.raises(ParameterError, match=f"SCIP parameter {name} = .* names a file"):
        check_scip_params({name: str(target)})  # the API's params= (the ILP engine calls this)
    cfg = tmp_path / "c.toml"
    cfg.write_text(GOOD.replace('"enumerate"', '"learn"').replace("bayes_factor = 3", "")
                   + f'[scip]\n"{name}" = "{target}"\n')
    with pytest.raises(ConfigError, match=f"{name} = .* names a file SCIP would write or read outside the output"):
        load_config(cfg)
    s = tmp_path / "g.set"
    s.write_text(f'{name} = "{target}"\n')
    with pytest.raises(ConfigError, match=f"g.set:1: {name} = .* names a file"):
        load_config(s, data=ASIA)
    assert main(["run", str(cfg), "--check"]) == 1
    assert not target.exists()
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("param", ["visual/vbcfilename", "visual/bakfilename"])
def test_scip_really_writes_where_these_parameters_say(param, tmp_path):
    """Why they are refused: SCIP writes the named file (checked on a tiny model)."""
    import pyscipopt

    m = pyscipopt.Model()
    m.hideOutput()
    x = m.addVar(vtype="B")
    y = m.addVar(vtype="B")
    m.addCons(x + y <= 1)
    m.setObjective(x + 2 * y, "maximize")
    target = tmp_path / "written.out"
    m.setParam(param, str(target))
    m.optimize()
    m.freeProb()
    assert target.exists()


# ----------------------------------------------------- one validation vocabulary
@pytest.mark.parametrize("api_call, config_body, words", [
    ("check_time_limit(-1)", "[limits]\ntime_limit = -1\n", "time_limit must be a number > 0 (seconds), got -1"),
    ("check_time_limit('10')", '[limits]\ntime_limit = "10"\n', 'time_limit must be a number > 0 (seconds), got "10"'),
    ("check_max_networks(0)", "[limits]\nmax_networks = 0\n", "max_networks must be an integer >= 1, got 0"),
    ("check_gap(-1)", "[limits]\ngap = -1\n", "gap must be a number >= 0, got -1"),
])
def test_api_and_config_use_the_same_words(api_call, config_body, words, tmp_path):
    from gobnilp_py import _validation as V
    from gobnilp_py.errors import ParameterError

    with pytest.raises(ParameterError) as api:
        eval("V." + api_call)
    assert str(api.value) == words
    job = "learn" if "gap" in config_body or "time_limit" in config_body else "enumerate"
    cfg = tmp_path / "c.toml"
    cfg.write_text(GOOD.replace('"enumerate"', f'"{job}"').replace("bayes_factor = 3", "bayes_factor = 3"
                   if job == "enumerate" else "") + config_body)
    with pytest.raises(ConfigError) as conf:
        load_config(cfg)
    assert str(conf.value).endswith(words.split(" ", 1)[1]) and words.split(" ", 1)[0] in str(conf.value)


def test_parameter_errors_subclass_the_builtins():
    from gobnilp_py import _validation as V
    from gobnilp_py.errors import GobnilpError, ParameterError, ParameterTypeError

    with pytest.raises(TypeError) as info:
        V.check_time_limit("10")
    assert isinstance(info.value, ParameterTypeError) and isinstance(info.value, ValueError)
    assert isinstance(info.value, GobnilpError)
    for bad in (True, None, [1], "3"):
        with pytest.raises(ParameterTypeError):
            V.check_positive_int(bad, "k")
    with pytest.raises(ParameterTypeError, match=r"k must be an integer >= 1, got 2.0"):
        V.check_positive_int(2.0, "k")
    for bad in (float("nan"), float("inf"), 0, -1):
        with pytest.raises(ParameterError):
            V.check_time_limit(bad)
    import numpy as np

    assert V.check_time_limit(np.float32(1.5)) == 1.5 and V.check_positive_int(np.int64(3), "k") == 3
    assert V.check_time_limit(None) is None and V.check_max_networks(None) is None
    with pytest.raises(ParameterError, match=r'score must be one of "BIC", "BDeu", got "bdue" \(did you mean "BDeu"\?\)'):
        V.check_choice("bdue", "score", ["BIC", "BDeu"])
    assert V.check_choice("bdeu", "score", ["BIC", "BDeu"], fold=True) == "BDeu"
    assert V.check_bayes_factor_epsilon(None, None) == 0.0
    assert V.check_bayes_factor_epsilon(math.e, None) == pytest.approx(1.0)
    with pytest.raises(ParameterError, match="give a bayes_factor"):
        V.check_bayes_factor_epsilon(None, None, required=True)
    with pytest.raises(ParameterError, match="not both"):
        V.check_bayes_factor_epsilon(3, 1.0)
    with pytest.raises(ParameterTypeError, match='bayes_factor must be a number >= 1, got "3"'):
        V.check_bayes_factor_epsilon("3", None)


def test_force_key_and_flag(tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep\n")
    cfg = tmp_path / "c.toml"
    cfg.write_text(GOOD.replace('"enumerate"', '"learn"').replace("bayes_factor = 3", "")
                   + '[output]\ndir = "mine"\nwrite = ["json"]\n')
    with pytest.raises(ConfigError, match="holds 'notes.txt'"):
        load_config(cfg)
    assert load_config(cfg, [("output", "force", True, "--force")]).values["output"]["force"] is True
    assert main(["run", str(cfg), "--force", "-q"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [".gobnilp-run", "notes.txt", "result.json"]
    capsys.readouterr()
