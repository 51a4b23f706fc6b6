"""``load_result`` validates what it loads as strictly as data (issue 37).

A saved result was trusted: ``"complete": "false"`` with the guarantee line
removed loaded as complete; edited fields raised raw ValueError, TypeError,
AttributeError or RecursionError, and ``/dev/zero`` a MemoryError.  Every
hostile edit here must be a one-line :class:`DataError` naming the field, and
a result whose labels were stripped must be refused, never loaded as complete.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

import gobnilp_py as gp
from gobnilp_py import CredibleSet, DataError, load_result
from gobnilp_py.output.writers import to_json


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict[str, dict]:
    """A run's result.json for an enumerate job (class summaries included) and for a learn job."""
    from gobnilp_py.output.job import run

    tmp = tmp_path_factory.mktemp("saved")
    data = gp.read_data(gp.examples.example_path("asia"))
    small = tmp / "small.csv"
    small.write_text(",".join(data.names[:5]) + "\n" + "\n".join(",".join(map(str, r)) for r in data.codes[:300, :5]))
    out = {}
    for job, extra in (("enumerate", 'bayes_factor = 10\nby = "class"\n'), ("learn", "")):
        cfg = tmp / f"{job}.toml"
        cfg.write_text(f'[data]\npath = "{small}"\n[scoring]\nscore = "BDeu"\n[search]\njob = "{job}"\n{extra}'
                       '[output]\nwrite = ["json"]\n')
        run(cfg, output_dir=tmp / job)
        out[job] = json.loads((tmp / job / "result.json").read_text())
    return out


def _load(tmp_path: Path, d: object) -> object:
    p = tmp_path / "r.json"
    p.write_text(d if isinstance(d, str) else json.dumps(d))
    return load_result(p)


def _refused(tmp_path: Path, d: object, pattern: str) -> str:
    with pytest.raises(DataError, match=pattern) as info:
        _load(tmp_path, d)
    msg = str(info.value)
    assert len(msg.splitlines()) == 1 and type(info.value) is DataError
    return msg


def test_the_untouched_files_load(saved, tmp_path):
    cs = _load(tmp_path, saved["enumerate"])
    assert isinstance(cs, CredibleSet) and cs.complete and cs.guarantee == saved["enumerate"]["guarantee"]
    net = _load(tmp_path, saved["learn"])
    assert net.complete and net.guarantee == saved["learn"]["guarantee"]


def _edit(d: dict, path: str, value: object = None, *, delete: bool = False) -> dict:
    d = copy.deepcopy(d)
    keys = path.split(".")
    here = d
    for k in keys[:-1]:
        here = here[int(k)] if isinstance(here, list) else here[k]
    last = keys[-1]
    if delete:
        del here[last]
    elif isinstance(here, list):
        here[int(last)] = value
    else:
        here[last] = value
    return d


ENUMERATE_EDITS = [
    # (path, value or "DELETE", message)
    ("result.complete", "false", r"result.complete must be true or false, got \"false\""),
    ("result.complete", "DELETE", r"result.complete is missing"),
    ("result.guarantee", "DELETE", r"result.guarantee is missing"),
    ("result.complete", False, r"guarantee .* differs from the one its fields give"),
    ("complete", False, r"the saved complete false differs"),
    ("guarantee", "complete: trust me", r"the saved guarantee \"complete: trust me\" differs"),
    ("result.opt", "-12.5", r"result.opt must be a number or null, got \"-12.5\""),
    ("result.epsilon", [1], r"result.epsilon must be a number or null, got a list"),
    ("result.networks", {"a": 1}, r"result.networks must be a list, got an object"),
    ("result.networks", "DELETE", r"result.networks is missing"),
    ("result.networks.0", 7, r"result.networks\[0\] must be an object, got a number"),
    ("result.networks.0.score", "high", r"result.networks\[0\].score must be a number or null"),
    ("result.networks.0.parents", [["a"]], r"result.networks\[0\].parents must be an object"),
    ("result.networks.0.parents.asia", "tub", r"result.networks\[0\].parents\[\"asia\"\] must be a list of variable names"),
    ("result.networks.0.parents.asia", [3], r"must be a list of variable names"),
    ("result.networks.0.parents.asia", ["nope"], r"result.networks\[0\]: .*nope"),
    ("result.n_networks", "5", r"result.n_networks must be an integer, got \"5\""),
    ("result.n_networks", 99999, r"says 99999 networks but lists"),
    ("result.n_networks", -1, r"result.n_networks must be >= 0"),
    ("result.infeasible", "no", r"result.infeasible must be true or false"),
    ("result.approximate", 0, r"result.approximate must be true or false, got 0"),
    ("result.caveats", "none", r"result.caveats must be a list"),
    ("result.caveats", [1], r"result.caveats must be a list of strings"),
    ("result.threshold", {}, r"result.threshold must be a number or null"),
    ("result.reason", 3, r"result.reason must be a string or null"),
    ("result.kind", None, r"result.kind must be a string, got null"),
    ("result.stats", [], r"result.stats must be an object or null"),
    ("result.classes", "x", r"result.classes must be a list or null"),
    ("result.classes.0", [], r"result.classes\[0\] must be an object"),
    ("result.classes.0.cpdag", "DELETE", r"result.classes\[0\].cpdag is missing"),
    ("result.classes.0.cpdag.names", [1, 2], r"cpdag.names must be a list of variable names"),
    ("result.classes.0.cpdag.directed", [["a"]], r"cpdag.directed must list \[name, name\] pairs"),
    ("result.classes.0.n_members", "many", r"n_members must be an integer"),
    ("result.classes.0.arrow_counts", [[1, 2, 3]], r"arrow_counts must list \[parent, child, count\] triples"),
    ("job", "destroy", r"unknown job \"destroy\""),
    ("inputs", [], r"inputs must be an object"),
    ("inputs.names", "abc", r"inputs.names must be a list"),
    ("edge_probabilities", [1], r"edge_probabilities must be an object with names and matrix"),
    ("edge_probabilities.matrix", [[1, 2], [3]], r"edge_probabilities.matrix must be a square list"),
]


@pytest.mark.parametrize("path, value, pattern", ENUMERATE_EDITS, ids=[f"{p}={v!r}" for p, v, _ in ENUMERATE_EDITS])
def test_an_edited_enumerate_result_is_one_data_error(saved, tmp_path, path, value, pattern):
    d = saved["enumerate"]
    if path.startswith("result.classes") and not d["result"].get("classes"):
        pytest.skip("this run wrote no class summaries")
    _refused(tmp_path, _edit(d, path, delete=value == "DELETE") if value == "DELETE" else _edit(d, path, value),
             pattern)


LEARN_EDITS = [
    ("result.complete", "false", r"result.complete must be true or false"),
    ("result.complete", "DELETE", r"result.complete is missing"),
    ("result.guarantee", "DELETE", r"result.guarantee is missing"),
    ("result.status", "time_limit", r"guarantee .* differs from the one its fields give"),
    ("result.status", "great", r"result.status must be one of optimal"),
    ("result.score", "1", r"result.score must be a number or null"),
    ("result.names", "abc", r"result.names must be a list"),
    ("result.parents", [], r"result.parents must be an object"),
    ("result.dual_bound", "x", r"result.dual_bound must be a number"),
    ("result.local_scores", {"asia": "x"}, r"result.local_scores must map names to numbers"),
    ("complete", "true", r"the saved complete \"true\" differs"),
]


@pytest.mark.parametrize("path, value, pattern", LEARN_EDITS, ids=[f"{p}={v!r}" for p, v, _ in LEARN_EDITS])
def test_an_edited_learn_result_is_one_data_error(saved, tmp_path, path, value, pattern):
    d = saved["learn"]
    _refused(tmp_path, _edit(d, path, delete=True) if value == "DELETE" else _edit(d, path, value), pattern)


def test_the_issue_case_stripped_labels_never_load_as_complete(saved, tmp_path):
    """``"complete": "false"`` with the guarantee removed: refused (it loaded as complete)."""
    d = _edit(_edit(saved["enumerate"], "result.complete", "false"), "result.guarantee", delete=True)
    _refused(tmp_path, d, r"result\.(complete|guarantee)")
    bare = copy.deepcopy(saved["enumerate"]["result"])  # a CredibleSet.to_dict() file, labels stripped
    bare.pop("guarantee")
    bare["complete"] = "false"
    _refused(tmp_path, bare, r"complete must be true or false|guarantee is missing")
    with pytest.raises(DataError, match=r"guarantee is missing"):
        CredibleSet.from_dict({k: v for k, v in saved["enumerate"]["result"].items() if k != "guarantee"})


@pytest.mark.parametrize("text, pattern", [
    ('{"networks": [], "opt": NaN, "epsilon": 1, "complete": true, "guarantee": "x"}', r"holds NaN, which is not JSON"),
    ('{"networks": [], "opt": Infinity, "epsilon": 1}', r"holds Infinity"),
    ("[" * 100_000 + "]" * 100_000, r"nested too deeply"),
    ('{"a": ' * 50_000 + "1" + "}" * 50_000, r"nested too deeply|not a gobnilp-py result"),
    ("\udcff", None),
    ("", r"not JSON"),
    ("[1, 2]", r"expected a JSON object, got a list"),
    ('{"networks": 1, "opt": 0}', r"networks must be a list"),
    ('{"names": ["a"], "parents": {}, "score": "high"}', r"status is missing|score must be a number"),
])
def test_hostile_json_is_one_data_error(tmp_path, text, pattern):
    p = tmp_path / "r.json"
    if pattern is None:  # not UTF-8
        p.write_bytes(b'{"a": "\xff"}')
        pattern = r"not UTF-8 text"
    else:
        p.write_text(text)
    with pytest.raises(DataError, match=pattern) as info:
        load_result(p)
    assert len(str(info.value).splitlines()) == 1 and type(info.value) is DataError


def test_deep_nesting_through_result_from_dict():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    d = {"networks": [{"score": -1.0, "parents": {"a": deep}}], "opt": -1.0, "epsilon": 0.0, "complete": True,
         "guarantee": "x"}
    with pytest.raises(DataError):
        gp.output.load.result_from_dict(d)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_and_a_folder_are_refused(tmp_path):
    with pytest.raises(DataError, match=r"/dev/zero: not a regular file"):
        load_result("/dev/zero")
    os.symlink("/dev/zero", tmp_path / "result.json")
    with pytest.raises(DataError, match=r"not a regular file"):
        load_result(tmp_path)  # the folder's result.json is a link to a device


def test_a_round_trip_still_holds_after_the_checks(saved):
    d = json.loads(to_json(saved["enumerate"]))
    cs = gp.output.load.result_from_dict(d)
    again = gp.output.load.result_from_dict(json.loads(to_json(cs.to_dict())))
    assert [n.key for n in again] == [n.key for n in cs] and again.guarantee == cs.guarantee
