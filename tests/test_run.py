"""``gobnilp-py run``: the bundled configs run and write what they declare; JSON equals the API; failures leave nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gobnilp_py import enumerate_networks, kbest, read_data
from gobnilp_py.cli import main
from gobnilp_py.config import load_config
from gobnilp_py.examples import example_path
from gobnilp_py.output.job import run

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").glob("*.toml"))
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory) -> Path:
    ds = read_data(example_path("asia"))
    p = tmp_path_factory.mktemp("data") / "small.csv"
    p.write_text(",".join(ds.names[:5]) + "\n" + "\n".join(",".join(map(str, r)) for r in ds.codes[:400, :5]) + "\n")
    return p


@pytest.mark.parametrize("config", CONFIGS, ids=[c.stem for c in CONFIGS])
def test_bundled_config_runs_and_writes_its_outputs(config, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", str(config), "--output-dir", str(out), "-q"])
    _, err = capsys.readouterr()
    assert code == 0, err
    cfg = load_config(config)
    assert cfg.outputs, f"{config.name} declares no outputs"
    written = {p.name for p in out.iterdir()}
    for name in cfg.outputs:
        fname = cfg.output_file(name)
        assert fname in written, (config.name, fname)
        path = out / fname
        assert path.stat().st_size > 0, fname
        if fname.endswith(".png"):
            assert path.read_bytes()[:8] == PNG_MAGIC
    if "json" in cfg.outputs:
        d = json.loads((out / "result.json").read_text())
        assert d["job"] == cfg.job and d["config"]["search"]["job"] == cfg.job
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging folder left


def test_enumerate_json_equals_api(small_csv, tmp_path, capsys):
    cfg = tmp_path / "e.toml"
    cfg.write_text(f'[data]\npath = "{small_csv}"\n[scoring]\nscore = "BDeu"\ness = 2.0\n'
                   '[search]\njob = "enumerate"\nbayes_factor = 10\n[output]\nwrite = ["json"]\n')
    assert main(["run", str(cfg), "-q", "-o", str(tmp_path / "o")]) == 0
    got = json.loads((tmp_path / "o" / "result.json").read_text())
    cs = enumerate_networks(read_data(small_csv), bayes_factor=10, score="BDeu", ess=2.0)
    assert cs.posterior_mass.exact        # the run computes it when cheap; the API when asked (docs/posterior.md)
    want = json.loads(json.dumps(cs.to_dict()))
    for d in (got["result"], want):
        d["stats"] = {k: v for k, v in d["stats"].items() if not k.startswith("time") and k != "maxrss_bytes"}   # the process's peak so far
    assert got["result"].pop("guarantee").startswith("complete: every network with score >= OPT - ")
    assert got.pop("guarantee").startswith("complete:") and got["complete"] is True
    for key in ("approximate", "infeasible"):
        assert got["result"].pop(key) is False
        want.pop(key, None)
    assert got["result"].pop("caveats") == want.pop("caveats", [])
    want.pop("guarantee", None)
    assert got["result"] == want
    assert len(got["mecs"]) == cs.n_mecs
    assert sum(m["size"] for m in got["mecs"]) == len(cs)


def test_bif_cpts_use_the_runs_ess(small_csv, tmp_path, capsys):
    """best.bif is fitted with the run's [scoring] ess (the prior the BDeu structure was scored with), not ess 1."""
    from gobnilp_py import learn
    from gobnilp_py.interop import to_bif

    cfg = tmp_path / "l.toml"
    cfg.write_text(f'[data]\npath = "{small_csv}"\n[scoring]\nscore = "BDeu"\ness = 7.0\n'
                   '[search]\njob = "learn"\n[output]\nwrite = ["bif"]\n')
    assert main(["run", str(cfg), "-q", "-o", str(tmp_path / "o")]) == 0
    text = (tmp_path / "o" / "best.bif").read_text()
    ds = read_data(small_csv)
    net = learn(ds, score="BDeu", ess=7.0)
    body = text[text.index("network gobnilp_py {"):]
    assert body == to_bif(net, ds, ess=7.0)
    assert body != to_bif(net, ds, ess=1.0)  # the ess is visible in the numbers


def test_kbest_from_python_equals_api(small_csv):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        cfg = Path(d) / "k.toml"
        cfg.write_text(f'[data]\npath = "{small_csv}"\n[search]\njob = "kbest"\nk = 6\n')
        res = run(cfg)
        run_path = res.config.data_path
    direct = kbest(read_data(small_csv), 6)
    assert [n.score for n in res.result.networks] == pytest.approx([n.score for n in direct.networks], abs=1e-9)
    assert [n.parents for n in res.result.networks] == [n.parents for n in direct.networks]
    assert run_path == small_csv.resolve() and res.files == []


def test_failure_during_work_leaves_no_output(small_csv, tmp_path, capsys, monkeypatch):
    import tempfile

    import gobnilp_py.output.pictures as pictures

    def broken(*a, **k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(pictures, "draw_score_rank", broken)
    logs = tmp_path / "logs"   # the crash log goes to the temporary folder: this test's own, not the system's
    logs.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(logs))
    cfg = tmp_path / "e.toml"
    cfg.write_text(f'[data]\npath = "{small_csv}"\n[search]\nbayes_factor = 3\n'
                   '[output]\ndir = "res"\nwrite = ["json", "csv", "pictures"]\n')
    code = main(["run", str(cfg), "-q"])
    assert code == 3  # an internal error, reported with a saved traceback
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.toml", "logs"]
    (log,) = logs.iterdir()
    assert log.name.startswith("gobnilp-py-crash-") and "RuntimeError: disk on fire" in log.read_text()
    assert f"traceback saved to {log}" in capsys.readouterr().err


def test_rerun_replaces_its_own_folder(small_csv, tmp_path, capsys):
    cfg = tmp_path / "l.toml"
    cfg.write_text(f'[data]\npath = "{small_csv}"\n[search]\njob = "learn"\n[output]\ndir = "res"\n'
                   'write = ["json", "dot"]\n')
    assert main(["run", str(cfg), "-q"]) == 0
    assert main(["run", str(cfg), "-q", "--write", "gobnilp"]) == 0
    assert sorted(p.name for p in (tmp_path / "res").iterdir()) == [".gobnilp-run", "networks.txt"]


def test_settings_file_run_with_progress(small_csv, tmp_path, capsys, caplog, monkeypatch):
    import sys

    s = tmp_path / "g.set"
    s.write_text('gobnilp/scoring/score_type = "BIC"\ngobnilp/scoring/palim = 2\ngobnilp/outputfile/solution = "x"\n'
                 "gobnilp/verbose/solvingstats = TRUE\n")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)  # progress shows on a terminal only
    code = main(["run", str(s), "--data", str(small_csv), "-o", str(tmp_path / "o")])
    out, err = capsys.readouterr()
    assert code == 0
    assert "BN score is" in out and "status: optimal" in out
    assert "[1/4] reading" in err and "[3/4] solving done in" in err
    assert "gobnilp/verbose/solvingstats has no meaning" in caplog.text
    assert (tmp_path / "o" / "networks.txt").read_text().endswith(out.split("status:")[0].splitlines()[-1] + "\n")


def test_quiet_prints_results_only(small_csv, tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[data]\npath = "{small_csv}"\n[search]\njob = "score"\nbayes_factor = 3\n')
    for argv in (["-q", "run", str(cfg)], ["run", str(cfg), "-q"]):
        assert main(argv) == 0
        out, err = capsys.readouterr()
        assert "candidate parent sets for 5 variables" in out and "epsilon-safe" in out
        assert err == ""  # no progress, no log lines


def test_progress_heartbeat_reports_time_limit_share():
    import io
    import time

    from gobnilp_py.progress import Progress

    buf = io.StringIO()
    p = Progress(("solving",), stream=buf, heartbeat=0.05, time_limit=10.0)
    with p.phase("solving"):
        time.sleep(0.2)
    text = buf.getvalue()
    assert "[1/1] solving ..." in text and "still solving" in text and "of the 10 s time limit" in text
    assert p.timings["solving"] >= 0.2


def test_bundled_gobnilp_settings_file_runs(tmp_path, capsys):
    out = tmp_path / "o"
    code = main(["run", str(ROOT / "configs" / "gobnilp.set"), "--data", "example:asia", "-o", str(out), "-q"])
    assert code == 0
    d = json.loads((out / "result.json").read_text())
    assert d["job"] == "learn" and d["result"]["status"] == "optimal"
    assert d["config"]["scoring"] == {"score": "BDeu", "ess": 1.0, "palim": 3, "prune": True}
    assert d["config"]["limits"]["time_limit"] == 120.0


# ----------------------------------------------------------- honest folders
def _strict(text):
    from gobnilp_py._json import loads_strict

    return loads_strict(text)


def test_infeasible_run_writes_a_labelled_folder_and_exits_1(small_csv, tmp_path, capsys):
    cfg = tmp_path / "i.toml"
    cfg.write_text(f'[data]\npath = "{small_csv}"\n[search]\njob = "learn"\n[constraints]\n'
                   'required_adjacencies = [["asia", "smoke"]]\nmax_edges = 0\n[output]\ndir = "o"\n'
                   'write = ["json", "gobnilp", "csv", "modelstring", "dot", "report"]\n')
    code = main(["run", str(cfg), "-q"])
    out, err = capsys.readouterr()
    assert code == 1
    assert out.startswith("# INFEASIBLE") and "status: infeasible" in out
    assert err.strip() == "gobnilp-py: infeasible: no network satisfies the constraints and the score table"
    folder = tmp_path / "o"
    d = _strict((folder / "result.json").read_text())
    assert d["infeasible"] is True and d["result"]["status"] == "infeasible" and d["result"]["score"] is None
    for name in ("networks.txt", "networks.csv", "modelstrings.txt"):
        assert (folder / name).read_text().startswith("# INFEASIBLE"), name
    assert (folder / "best.dot").read_text().startswith("// INFEASIBLE")
    assert "| guarantee | INFEASIBLE" in (folder / "report.md").read_text()
    marker = _strict((folder / ".gobnilp-run").read_text())
    assert "INFEASIBLE" in marker["note"]  # the folder never claims success


def test_time_limited_run_labels_every_file(small_csv, tmp_path, capsys):
    cfg = tmp_path / "t.toml"
    cfg.write_text(f'[data]\npath = "{small_csv}"\n[search]\njob = "enumerate"\nbayes_factor = 1000\n'
                   '[limits]\nmax_networks = 3\n[output]\ndir = "o"\nwrite = "all"\n')
    assert main(["run", str(cfg), "-q"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("# INCOMPLETE (max_networks)")
    folder = tmp_path / "o"
    d = _strict((folder / "result.json").read_text())
    assert d["complete"] is False and d["result"]["guarantee"].startswith("INCOMPLETE (max_networks)")
    for name in ("networks.csv", "networks.txt", "modelstrings.txt"):
        assert (folder / name).read_text().startswith("# INCOMPLETE (max_networks)"), name
    assert (folder / "best.dot").read_text().startswith("// INCOMPLETE (max_networks)")
    for name in ("arc_strength.csv", "best_adjacency.csv"):  # the hand-off files too
        assert (folder / name).read_text().startswith("# INCOMPLETE (max_networks)"), name
    assert (folder / "best.bif").read_text().startswith("// INCOMPLETE (max_networks)")
    assert "| guarantee | INCOMPLETE (max_networks)" in (folder / "report.md").read_text()
    jkl = (folder / "scores.jkl").read_text()
    assert '# gobnilp_py: guarantee = "epsilon-safe"' in jkl


def test_every_json_of_a_run_is_strict(small_csv, tmp_path, capsys):
    for job, extra in (("score", "bayes_factor = 3\n"), ("learn", ""), ("enumerate", "bayes_factor = 3\n"),
                       ("kbest", "k = 3\n")):
        cfg = tmp_path / f"{job}.toml"
        cfg.write_text(f'[data]\npath = "{small_csv}"\n[search]\njob = "{job}"\n{extra}[output]\ndir = "{job}-o"\n'
                       'write = ["json"]\n')
        assert main(["run", str(cfg), "-q"]) == 0
        d = _strict((tmp_path / f"{job}-o" / "result.json").read_text())
        assert d["job"] == job and d["guarantee"] and d["complete"] is True
    capsys.readouterr()


def test_rerun_never_deletes_a_users_file(small_csv, tmp_path, capsys):
    cfg = tmp_path / "l.toml"
    cfg.write_text(f'[data]\npath = "{small_csv}"\n[search]\njob = "learn"\n[output]\ndir = "res"\nwrite = ["json"]\n')
    assert main(["run", str(cfg), "-q"]) == 0
    (tmp_path / "res" / "analysis.ipynb").write_text("{}")
    assert main(["run", str(cfg), "-q"]) == 1
    err = capsys.readouterr().err
    assert "holds 'analysis.ipynb', which gobnilp-py did not write" in err and err.count("\n") == 1
    assert main(["run", str(cfg), "-q", "--force"]) == 0
    assert sorted(p.name for p in (tmp_path / "res").iterdir()) == [".gobnilp-run", "analysis.ipynb", "result.json"]
