"""The bad-input corpus: every case is refused with one stderr line, the right exit status, no traceback, no file touched.

Each case runs the command line (in-process, ``gobnilp_py.cli.main``) in a
fresh copy of ``tests/bad_inputs`` and checks:

* the exit status (1 for a user error, 2 for a bad flag);
* stderr is exactly one line, ``gobnilp-py: error: ...``, naming the
  problem (a substring or regex per case), with no traceback;
* stdout is empty (nothing that looks like a result);
* no file in the working folder was created, changed, or removed
  (a snapshot of names, sizes, modes and content before and after).

Files that must be made at test time (a huge field, thousands of columns,
symlinks, folders in the way) are made by :func:`_make_runtime_files`.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import pytest

from gobnilp_py.cli import main

CORPUS = Path(__file__).resolve().parent / "bad_inputs"


def _make_runtime_files(root: Path) -> None:
    d = root / "data"
    (d / "huge_field.csv").write_text("a,b\n" + "x" * 140_000 + ",1\n1,0\n0,1\n")
    n = 3_500  # (n - 0) * (n - 1) > 10,000,000: too wide to score
    (d / "wide.csv").write_text(",".join(f"v{j}" for j in range(n)) + "\n"
                                + "\n".join(",".join(str((i + j) % 2) for j in range(n)) for i in range(4)) + "\n")
    (d / "a_folder.csv").mkdir()
    (root / "jkl" / "a_folder.jkl").mkdir()
    (root / "constraints" / "a_folder.con").mkdir()
    (root / "configs" / "a_folder.toml").mkdir()
    os.symlink("/dev/zero", d / "zero.csv")
    os.symlink("/dev/zero", root / "jkl" / "zero.jkl")
    (root / "foreign").mkdir()
    (root / "foreign" / "notes.txt").write_text("the user's notes\n")
    (root / "mine.jkl").write_text("2\na 1\n-1 0\nb 1\n-1 0\n")  # a .jkl gobnilp-py did not write
    (root / "out_is_file").write_text("a file where a folder is wanted\n")
    (root / "w3.jkl").write_text(
        "# gobnilp_py: score = \"BIC\"\n# gobnilp_py: epsilon = 1.0986122886681098\n"
        "# gobnilp_py: guarantee = \"epsilon-safe\"\n# gobnilp_py: prune = true\n"
        "2\na 2\n-1.5 0\n-1.0 1 b\nb 1\n-2.0 0\n")
    # a provenance value nested 100,000 deep (it was a RecursionError, exit 3)
    (root / "jkl" / "deep_provenance.jkl").write_text(
        "# gobnilp_py: pruning = " + "[" * 100_000 + "]" * 100_000 + "\n2\na 1\n-1.5 0\nb 1\n-2.0 0\n")
    os.symlink("/dev/zero", root / "constraints" / "zero.con")
    os.symlink("/dev/zero", root / "configs" / "zero.toml")
    (d / "line\nbreak.csv").write_text("a,b\n0,NA\n1,0\n")  # a path with a line break (it split the error line)
    (root / "gg.jkl").write_text(  # a table the global gap rule pruned: unsafe under an order
        "# gobnilp_py: score = \"BIC\"\n# gobnilp_py: epsilon = 1.0986122886681098\n"
        "# gobnilp_py: guarantee = \"epsilon-safe\"\n# gobnilp_py: prune = true\n"
        "# gobnilp_py: pruning = {\"a\": {\"global_gap\": 2}, \"b\": {}}\n"
        "2\na 2\n-1.5 0\n-1.0 1 b\nb 1\n-2.0 0\n")


def _snapshot(root: Path) -> dict[str, tuple]:
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            st = os.lstat(p)
            if p.is_symlink():
                snap[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                snap[rel] = ("dir", st.st_mode)
            else:
                snap[rel] = ("file", st.st_mode, st.st_size, st.st_mtime_ns, hashlib.sha1(p.read_bytes()).hexdigest())
    return snap


# (id, argv, exit status, expected message: a regex searched in the error line)
E = 1
CASES: list[tuple[str, list[str], int, str]] = [
    # ---------------------------------------------------------------- data files
    ("data empty", ["score", "data/empty.csv", "-o", "o.jkl"], E, r"the file is empty"),
    ("data header only", ["score", "data/header_only.csv", "-o", "o.jkl"], E, r"needs at least 2 data rows, found 0"),
    ("data one row", ["learn", "data/one_row.csv"], E, r"needs at least 2 data rows, found 1"),
    ("data ragged short", ["learn", "data/ragged_short.csv"], E, r"line 3: ragged row with 2 fields, expected 3"),
    ("data ragged long", ["learn", "data/ragged_long.csv"], E, r"line 3: ragged row with 4 fields, expected 3"),
    ("data blank line", ["learn", "data/blank_line_inside.csv"], E, r"line 3: blank line inside the data"),
    ("data missing empty", ["learn", "data/missing_empty.csv"], E, r"line 3, column 'b': missing value ''"),
    ("data missing NA", ["learn", "data/missing_na.csv"], E, r"line 2, column 'b': missing value 'NA'"),
    ("data missing ?", ["learn", "data/missing_question.csv"], E, r"line 3, column 'a': missing value '\?'"),
    ("data missing nan", ["learn", "data/missing_nan.csv"], E, r"column 'b': missing value 'nan'"),
    ("data duplicate names", ["learn", "data/dup_names.csv"], E, r"duplicate variable name 'a'"),
    ("data empty name", ["learn", "data/empty_name.csv"], E, r"a variable has an empty name"),
    ("data space in name", ["learn", "data/space_name.csv"], E, r"variable name 'a b' contains white space"),
    ("data binary", ["learn", "data/binary.csv"], E, r"is not a text file \(binary data at byte \d+\)"),
    ("data latin-1", ["learn", "data/latin1.csv"], E, r"is not UTF-8 text"),
    ("data zip", ["learn", "data/zip.csv"], E, r"is a zip archive"),
    ("data bad gzip", ["learn", "data/bad_gzip.csv.gz"], E, r"gzip-compressed but cannot be decompressed"),
    ("data huge field", ["learn", "data/huge_field.csv"], E, r"line 2: a field is over 131,072 characters"),
    ("data folder", ["learn", "data/a_folder.csv"], E, r"data file data/a_folder.csv is a folder"),
    ("data /dev/zero", ["learn", "data/zero.csv"], E, r"is not a regular file"),
    ("data missing file", ["learn", "data/nope.csv"], E, r"data file not found: data/nope.csv"),
    ("data escape in header", ["learn", "data/escape_header.csv"], E,
     r"variable name 'a\\x1b\[31mred' contains a control character"),
    ("data bidi in header", ["learn", "data/bidi_header.csv"], E, r"variable name 'a\\u202eb' contains a control character"),
    ("data path with a line break", ["learn", "data/line\nbreak.csv"], E,
     r"error: data/line\\nbreak.csv, line 2, column 'b': missing value 'NA'"),
    ("data missing path with a line break", ["learn", "data/no\nsuch\r.csv"], E,
     r"error: data file not found: data/no\\nsuch\\r.csv$"),
    ("data missing None names the option", ["learn", "data/missing_na.csv"], E,
     r"missing value 'NA'; .*\(--missing-values, \[data\] missing_values\)"),
    ("data missing-values kept", ["learn", "data/missing_question.csv", "--missing-values", "NA,?"], E,
     r"missing value '\?'"),
    ("data --states unknown value", ["learn", "good.csv", "--states", "a=1"], E,
     r"column 'a' holds the value '0', which is not one of its declared states \('1'\)"),
    ("data --states malformed", ["learn", "good.csv", "--states", "a"], E, r"--states must look like VAR=S1,S2,..."),
    ("data --states empty state", ["learn", "good.csv", "--states", "a=0,,1"], E, r"a state has an empty name"),
    ("data --states unknown variable", ["learn", "good.csv", "--states", "zz=0,1"], E,
     r"state_names given for unknown variable 'zz'"),
    ("data not a data file", ["learn", "passwd_like"], E,
     r"has a different value in every one of its 12 rows \(an identifier or free text"),
    ("data unterminated quote", ["learn", "data/quote_open.csv"], E, r"quote_open.csv, line 2: ragged row with 1 fields, expected 2"),
    ("dat bad arity", ["learn", "data/dat_bad_arity.dat"], E, r"line 2, column 'b': arity 'x' is not an integer"),
    ("dat short arities", ["learn", "data/dat_short_arities.dat"], E, r"line 2: 2 arities for 3 variables"),
    ("dat ragged", ["learn", "data/dat_ragged.dat"], E, r"line 4: ragged row with 1 fields, expected 2"),
    ("dat zero arity", ["learn", "data/dat_zero_arity.dat"], E, r"arity must be >= 1, got 0"),
    ("dat only names", ["learn", "data/dat_only_names.dat"], E, r"needs a names line and an arities line"),
    ("dat arity below observed", ["learn", "data/dat_arity_too_small.dat"], E,
     r"column 'a' has 2 distinct values but its declared arity is 1"),
    ("arities count", ["learn", "good.csv", "--arities", "2,2"], E, r"2 arities given for 5 variables"),
    ("arities text", ["learn", "good.csv", "--arities", "2,x,3,2,2"], E, r"--arities must be comma-separated integers"),
    ("arities zero", ["learn", "good.csv", "--arities", "2,0,3,2,2"], E, r"arity of 'b' must be an integer >= 1, got 0"),
    ("arities below observed", ["learn", "good.csv", "--arities", "2,2,2,2,2"], E,
     r"column 'c' has 3 distinct values but its declared arity is 2"),
    ("delimiter empty", ["learn", "good.csv", "--delimiter", ""], E, r"delimiter must be one character"),
    ("delimiter two chars", ["learn", "good.csv", "--delimiter", "ab"], E, r"delimiter must be one character .*got \"ab\""),
    ("delimiter quote", ["learn", "good.csv", "--delimiter", '"'], E, r"delimiter cannot be a quote"),
    ("data too wide", ["learn", "data/wide.csv"], E, r"3500 variables are too many for exact learning"),
    ("data too wide score", ["score", "data/wide.csv", "-o", "o.jkl"], E, r"too many for exact learning"),
    ("names ':' in csv", ["enumerate", "data/colon_names.csv", "--bf", "3", "-o", "outdir"], E,
     r"variable name \"x:1\" contains \":\", which bnlearn model strings \(networks.csv\)"),
    ("names '#' in jkl", ["score", "data/hash_names.csv", "-o", "o.jkl"], E, r"starts with \"#\""),
    # ------------------------------------------------------------------ .jkl
    ("jkl empty", ["learn", "jkl/empty.jkl"], E, r"file ends early, expected the number of variables"),
    ("jkl bad n", ["learn", "jkl/bad_n.jkl"], E, r"line 1: expected the number of variables \(an integer\), got 'x'"),
    ("jkl n with extra", ["learn", "jkl/n_with_extra.jkl"], E, r"line 1: expected the number of variables alone"),
    ("jkl ends early", ["learn", "jkl/ends_early.jkl"], E, r"file ends early, expected a 'name count' header"),
    ("jkl bad header", ["learn", "jkl/bad_header.jkl"], E, r"line 2: expected 'name count'"),
    ("jkl bad count", ["learn", "jkl/bad_count.jkl"], E, r"line 2: expected the number of parent sets \(an integer\)"),
    ("jkl negative count", ["learn", "jkl/negative_count.jkl"], E, r"line 2: the number of parent sets must be >= 0"),
    ("jkl score nan", ["learn", "jkl/score_nan.jkl"], E, r"line 3: score 'nan' is not a finite number"),
    ("jkl score inf", ["learn", "jkl/score_inf.jkl"], E, r"line 3: score 'inf' is not a finite number"),
    ("jkl score -inf", ["learn", "jkl/score_neginf.jkl"], E, r"line 4: score '-inf' is not a finite number"),
    ("jkl score 1e20", ["learn", "jkl/score_huge.jkl"], E, r"line 4: score '-1e20' is not a finite number with \|score\| < 1e\+20"),
    ("jkl score text", ["learn", "jkl/score_text.jkl"], E, r"line 3: score 'abc' is not a number"),
    ("jkl too many parent names", ["learn", "jkl/too_many_parent_names.jkl"], E,
     r"line 4: expected 'score m parent1 .. parentm' with m=1, got 2 parent name\(s\)"),
    ("jkl too few parent names", ["learn", "jkl/too_few_parent_names.jkl"], E, r"with m=2, got 1 parent name"),
    ("jkl count too large", ["learn", "jkl/count_too_large.jkl"], E,
     r"line 5: score 'b' is not a number; it looks like the next variable's header: the count 3 on line 2"),
    ("jkl count too small", ["learn", "jkl/count_too_small.jkl"], E,
     r"line 4: expected 'name count' .*looks like a parent set line: does the count on line 2 \(1\)"),
    ("jkl unknown parent", ["learn", "jkl/unknown_parent.jkl"], E, r"parent 'zz' of 'a' is not a variable of the file"),
    ("jkl self parent", ["learn", "jkl/self_parent.jkl"], E, r"invalid parent set \(0,\) for variable 'a'"),
    ("jkl duplicate parent set", ["learn", "jkl/duplicate_parent_set.jkl"], E, r"parent set \{b\} listed twice"),
    ("jkl duplicate variable", ["learn", "jkl/duplicate_variable.jkl"], E, r"duplicate variable names 'a'"),
    ("jkl trailing text", ["learn", "jkl/trailing_text.jkl"], E, r"line 7: unexpected text after the last variable"),
    ("jkl binary", ["learn", "jkl/binary.jkl"], E, r"is not a text file \(binary data at byte \d+\)"),
    ("jkl latin-1", ["learn", "jkl/latin1.jkl"], E, r"is not UTF-8 text"),
    ("jkl folder", ["learn", "jkl/a_folder.jkl"], E, r"score file jkl/a_folder.jkl is a folder"),
    ("jkl /dev/zero", ["learn", "jkl/zero.jkl"], E, r"is not a regular file"),
    ("jkl missing", ["learn", "jkl/nope.jkl"], E, r"score file not found: jkl/nope.jkl"),
    ("jkl provenance json", ["learn", "jkl/bad_provenance_json.jkl"], E, r"line 1: provenance value of 'epsilon' is not valid JSON"),
    ("jkl provenance epsilon", ["learn", "jkl/bad_provenance_eps.jkl"], E, r"provenance epsilon must be a number >= 0"),
    ("jkl provenance guarantee", ["learn", "jkl/bad_provenance_guarantee.jkl"], E, r"provenance guarantee 'maybe'"),
    ("jkl provenance line", ["learn", "jkl/bad_provenance_line.jkl"], E, r"line 1: malformed provenance line"),
    ("jkl 0 variables", ["learn", "jkl/zero_variables.jkl"], E, r"line 1: the file declares 0 variables"),
    ("jkl provenance Infinity", ["learn", "jkl/provenance_infinity.jkl"], E,
     r"line 1: provenance value of 'epsilon' is not valid JSON: 'Infinity'"),
    ("jkl provenance NaN", ["learn", "jkl/provenance_nan.jkl"], E, r"line 1: provenance value of 'epsilon' is not valid JSON"),
    ("jkl provenance nested deep", ["learn", "jkl/deep_provenance.jkl"], E,
     r"line 1: provenance value of 'pruning' is nested too deeply"),
    ("jkl escape in name", ["learn", "jkl/escape_name.jkl"], E,
     r"line 2: variable name 'a\\x1b\[31mx' contains a control character"),
    ("jkl no families", ["learn", "jkl/no_families.jkl"], E, r"'a' has no candidate parent set"),
    ("jkl missing m", ["learn", "jkl/missing_m.jkl"], E, r"line 3: expected 'score m parent1 .. parentm', got only a score"),
    ("jkl bad m", ["learn", "jkl/bad_m.jkl"], E, r"line 3: expected the parent count \(an integer\), got 'x'"),
    ("jkl with --score", ["learn", "jkl/good.jkl", "--score", "BDeu"], E, r"--score cannot apply: good.jkl is a score table"),
    ("jkl with --palim", ["enumerate", "jkl/good.jkl", "--bf", "3", "--palim", "2"], E, r"--palim cannot apply"),
    ("jkl with --no-header", ["learn", "jkl/good.jkl", "--no-header"], E, r"--no-header cannot apply"),
    ("jkl with --delimiter", ["kbest", "jkl/good.jkl", "-k", "2", "--delimiter", ","], E, r"--delimiter cannot apply"),
    ("jkl with --arities", ["learn", "jkl/good.jkl", "--arities", "2,2"], E, r"--arities cannot apply"),
    ("jkl with --ess", ["learn", "jkl/good.jkl", "--ess", "2"], E, r"--ess cannot apply"),
    ("jkl with --no-prune", ["learn", "jkl/good.jkl", "--no-prune"], E, r"--no-prune cannot apply"),
    ("jkl to score", ["score", "jkl/good.jkl", "-o", "o.jkl"], E, r"is a score table \(.jkl\); this command needs data"),
    ("jkl pruned for a smaller gap", ["enumerate", "w3.jkl", "--bf", "20"], E,
     r"pruned for epsilon=1.09861\b.* may lack parent sets of networks within epsilon=2.99573"),
    # ------------------------------------------------------------- constraints
    ("constraints unknown variable", ["learn", "good.csv", "--constraints", "constraints/unknown_var.con"], E,
     r"unknown variable"),
    ("constraints bad syntax", ["learn", "good.csv", "--constraints", "constraints/bad_syntax.con"], E, r"line 1: cannot read constraint 'a<>b'"),
    ("constraints binary", ["learn", "good.csv", "--constraints", "constraints/binary.con"], E,
     r"constraints file constraints/binary.con is not a text file \(binary data at byte 5\)"),
    ("constraints missing", ["learn", "good.csv", "--constraints", "constraints/nope.con"], E, r"cannot read constraints file constraints/nope.con: No such file"),
    ("constraints UTF-16", ["learn", "good.csv", "--constraints", "constraints/utf16.con"], E,
     r"constraints file constraints/utf16.con is UTF-16 text; save it as UTF-8"),
    ("constraints UTF-16 without BOM", ["learn", "good.csv", "--constraints", "constraints/utf16_nobom.con"], E,
     r"utf16_nobom.con is UTF-16 text"),
    ("constraints Latin-1", ["learn", "good.csv", "--constraints", "constraints/latin1.con"], E,
     r"constraints file constraints/latin1.con is not UTF-8 text \(invalid byte 0xf6 at offset 4: Latin-1 or "
     r"another encoding\?\); save it as UTF-8"),
    ("constraints /dev/zero", ["learn", "good.csv", "--constraints", "constraints/zero.con"], E,
     r"constraints/zero.con is not a regular file"),
    ("constraints not a constraints file", ["learn", "good.csv", "--constraints", "passwd_like"], E,
     r"passwd_like, line 1: cannot read constraint 'root:x:0:0:r\.\.\.' \(31 characters\)"),
    ("constraints folder", ["learn", "good.csv", "--constraints", "constraints/a_folder.con"], E, r"a_folder.con: Is a directory"),
    ("constraints self loop", ["learn", "good.csv", "--constraints", "constraints/self_loop.con"], E, r"a->a \(constraints/self_loop.con, line 1\) repeats a variable"),
    ("constraints contradiction", ["learn", "good.csv", "--constraints", "constraints/contradiction.con"], E,
     r"required arrow a->b .* is impossible: the arrow a->b is forbidden"),
    ("constraints cycle", ["enumerate", "good.csv", "--bf", "3", "--constraints", "constraints/cycle.con"], E, r"required arrows form a cycle a->b->c->a"),
    # ------------------------------------------------------------------ configs
    ("config syntax", ["run", "configs/syntax_error.toml"], E, r"syntax_error.toml: not valid TOML"),
    ("config unknown section", ["run", "configs/unknown_section.toml"], E, r"unknown section \[serach\] \(did you mean search\?\)"),
    ("config unknown key", ["run", "configs/unknown_key.toml"], E, r"\[search\] bayes_facter is not a known key \(did you mean bayes_factor\?\)"),
    ("config time_limit string", ["run", "configs/time_limit_string.toml"], E, r"\[limits\] time_limit must be a number > 0 \(seconds\), got \"10\""),
    ("config time_limit negative", ["run", "configs/time_limit_negative.toml"], E, r"time_limit must be a number > 0 \(seconds\), got -5"),
    ("config bf and epsilon", ["run", "configs/bf_and_epsilon.toml"], E, r"give either \[search\] bayes_factor or \[search\] epsilon"),
    ("config no data", ["run", "configs/no_data.toml"], E, r"\[data\] path is required"),
    ("config data not found", ["run", "configs/data_not_found.toml"], E, r"names a file that does not exist"),
    ("config k for enumerate", ["run", "configs/k_for_enumerate.toml"], E, r"\[search\] k does not apply to job \"enumerate\""),
    ("config enumerate without bf", ["run", "configs/enumerate_without_bf.toml"], E, r"needs \[search\] bayes_factor"),
    ("config scip vbcfilename", ["run", "configs/scip_vbcfilename.toml"], E,
     r"\[scip\] visual/vbcfilename = .* names a file SCIP would write or read outside the output folder"),
    ("config scip bakfilename", ["run", "configs/scip_bakfilename.toml"], E, r"visual/bakfilename = \"stolen.bak\" names a file"),
    ("config scip hsllib", ["run", "configs/scip_hsllib.toml"], E, r"nlpi/ipopt/hsllib .* names a file"),
    ("config scip unknown", ["run", "configs/scip_unknown.toml"], E, r"is not a SCIP parameter \(did you mean separating/maxrounds\?\)"),
    ("config scip wrong type", ["run", "configs/scip_wrong_type.toml"], E, r"must be an integer \(SCIP's default is"),
    ("config scip protected", ["run", "configs/scip_protected.toml"], E, r"cannot be changed for job \"enumerate\""),
    ("config write unknown", ["run", "configs/write_unknown.toml"], E, r"has unknown output \"jsn\" \(did you mean \"json\"\?\)"),
    ("config jkl with score", ["run", "configs/jkl_with_score.toml"], E, r"\[scoring\] score cannot apply: \[data\] path good.jkl is a score table"),
    ("config prune false", ["run", "configs/prune_false_no_palim.toml"], E, r"prune = false needs \[scoring\] palim"),
    ("config bad delimiter", ["run", "configs/bad_delimiter.toml"], E, r"\[data\] delimiter must be one character"),
    ("config bad arities", ["run", "configs/bad_arities.toml"], E, r"\[data\] arities must be a list of integers >= 1"),
    ("config names ':' csv", ["run", "configs/colon_names_csv.toml", "-o", "outdir", "-q"], E,
     r"variable name \"x:1\" contains \":\", which bnlearn model strings \(networks.csv\)"),
    ("config names '<-' gobnilp", ["run", "configs/arrow_names_gobnilp.toml", "-o", "outdir", "-q"], E,
     r"variable name \"x<-y\" contains \"<-\", which GOBNILP network text \(networks.txt\)"),
    ("config names ',' gobnilp", ["run", "configs/comma_names_gobnilp.toml", "-o", "outdir", "-q"], E,
     r"variable name \"p,q\" contains \",\""),
    ("config names '[' report", ["run", "configs/bracket_names_report.toml", "-o", "outdir", "-q"], E,
     r"variable name \"v\[1\]\" contains \"\[\", which bnlearn model strings \(report.md\)"),
    ("config names '#' jkl", ["run", "configs/hash_names_jkl.toml", "-o", "outdir", "-q"], E, r"starts with \"#\""),
    ("config binary", ["run", "configs/binary.toml"], E,
     r"cannot read config file configs/binary.toml: not UTF-8 text \(invalid byte 0xff at offset 20\); save it as UTF-8"),
    ("config folder", ["run", "configs/a_folder.toml"], E, r"cannot read config file configs/a_folder.toml: .*Is a directory"),
    ("config missing", ["run", "configs/nope.toml"], E, r"config file not found"),
    ("config max_networks 0", ["run", "configs/max_networks_zero.toml"], E, r"\[limits\] max_networks must be an integer >= 1, got 0"),
    ("config gap negative", ["run", "configs/gap_negative.toml"], E, r"\[limits\] gap must be a number >= 0, got -1"),
    ("config score typo", ["run", "configs/score_typo.toml"], E, r"\[scoring\] score must be one of .* \(did you mean \"BDeu\"\?\)"),
    ("config constraints unknown key", ["run", "configs/constraints_unknown_key.toml"], E,
     r"required_arrow is not a constraints key \(did you mean required_arrows\?\)"),
    ("config constraints unknown var", ["run", "configs/constraints_unknown_var.toml", "-q"], E, r"unknown variable 'zz' in required arrow a->zz"),
    ("config job typo", ["run", "configs/job_typo.toml"], E, r"\[search\] job must be one of .* \(did you mean \"learn\"\?\)"),
    ("config output dir is a file", ["run", "configs/output_dir_is_file.toml"], E, r"exists and is not a folder"),
    ("settings vbcfilename", ["run", "settings/vbc.set", "--data", "good.csv"], E,
     r"vbc.set:1: visual/vbcfilename = .* names a file SCIP would write or read"),
    ("settings dagconstraintsfile not constraints", ["run", "settings/constraints_not_constraints.set", "--data",
                                                     "good.csv"], E,
     r"gobnilp/dagconstraintsfile .*is invalid: .*passwd_like, line 1: cannot read constraint 'root:x:0:0:r\.\.\.'"),
    ("config data not a data file", ["run", "configs/data_not_data.toml"], E, r"an identifier or free text"),
    ("config missing_values numbers", ["run", "configs/missing_values_numbers.toml"], E,
     r"\[data\] missing_values must be a list of strings \(the texts read as missing\), got the item 1"),
    ("config state_names unknown", ["run", "configs/state_names_unknown.toml"], E,
     r"state_names given for unknown variable 'zz'"),
    ("config constraints UTF-16", ["run", "configs/constraints_utf16.toml"], E, r"utf16.con is UTF-16 text"),
    ("config /dev/zero", ["run", "configs/zero.toml"], E, r"zero.toml: not a regular file"),
    ("settings alns rewardfilename", ["run", "settings/alns_reward.set", "--data", "good.csv"], E,
     r"heuristics/alns/rewardfilename = \"rewards.txt\" names a file"),
    ("settings positive prunegap", ["run", "settings/positive_prunegap.set", "--data", "good.csv"], E,
     r"prunegap = 2 > 0 would prune parent sets"),
    ("settings bad line", ["run", "settings/bad_line.set", "--data", "good.csv"], E, r"bad_line.set:1: cannot read"),
    ("settings BGe", ["run", "settings/bge.set", "--data", "good.csv"], E, r"BGe.* continuous data"),
    ("run --set without =", ["run", "configs/time_limit_negative.toml", "--set", "limits.time_limit"], E,
     r"--set 'limits.time_limit' must look like section.key=value"),
    ("run --set unknown section", ["run", "configs/gap_negative.toml", "--set", "serach.k=3"], E,
     r"unknown section 'serach'"),
    ("run --time-limit 0", ["run", "configs/gap_negative.toml", "--set", "limits.gap=0", "--time-limit", "0"], E,
     r"command line: --time-limit must be a number > 0 \(seconds\), got 0"),
    ("run -k 0", ["run", "configs/gap_negative.toml", "--set", "limits.gap=0", "--job", "kbest", "-k", "0"], E,
     r"-k must be an integer >= 1, got 0"),
    ("run job score on jkl", ["run", "configs/jkl_with_score.toml", "--set", "scoring.score=\"BIC\"", "--job", "score"], E,
     r"is a score table \(.jkl\); job \"score\" needs data"),
    ("run output foreign folder", ["run", "configs/gap_negative.toml", "--set", "limits.gap=0", "-o", "foreign"], E,
     r"foreign holds 'notes.txt', which gobnilp-py did not write"),
    ("run output is a file", ["run", "configs/gap_negative.toml", "--set", "limits.gap=0", "-o", "out_is_file"], E,
     r"out_is_file exists and is not a folder"),
    # -------------------------------------------------------------------- flags
    ("flag time-limit negative", ["learn", "good.csv", "--time-limit", "-1"], E, r"--time-limit must be a number > 0 \(seconds\), got -1"),
    ("flag time-limit nan", ["learn", "good.csv", "--time-limit", "nan"], E, r"--time-limit must be a number > 0 \(seconds\), got nan"),
    ("flag time-limit inf", ["enumerate", "good.csv", "--bf", "3", "--time-limit", "inf"], E,
     r"--time-limit must be a finite number > 0 \(seconds\), got inf"),
    ("flag gap negative", ["learn", "good.csv", "--gap", "-0.5"], E, r"--gap must be a number >= 0, got -0.5"),
    ("flag bf below 1", ["enumerate", "good.csv", "--bf", "0.5"], E, r"--bf must be a number >= 1, got 0.5"),
    ("flag bf nan", ["enumerate", "good.csv", "--bf", "nan"], E, r"--bf must be a number >= 1, got nan"),
    ("flag epsilon negative", ["enumerate", "good.csv", "--epsilon", "-1"], E, r"--epsilon must be a number >= 0, got -1"),
    ("flag score bf below 1", ["score", "good.csv", "--bf", "0.9", "-o", "o.jkl"], E, r"--bf must be a number >= 1"),
    ("flag max-networks 0", ["enumerate", "good.csv", "--bf", "3", "--max-networks", "0"], E,
     r"--max-networks must be an integer >= 1, got 0"),
    ("flag k 0", ["kbest", "good.csv", "-k", "0"], E, r"-k must be an integer >= 1, got 0"),
    ("flag score unknown", ["learn", "good.csv", "--score", "XYZ"], E, r"--score must be one of \"BIC\", \"AIC\", \"BDeu\", \"K2\", \"BDs\", \"bic-g\", \"aic-g\", \"bge\", got \"XYZ\""),
    ("flag score typo", ["learn", "good.csv", "--score", "BDue"], E, r"\(did you mean \"BDeu\"\?\)"),
    ("flag ess zero", ["learn", "good.csv", "--score", "BDeu", "--ess", "0"], E, r"--ess must be a number > 0, got 0"),
    ("flag ess nan", ["learn", "good.csv", "--score", "BDeu", "--ess", "nan"], E, r"--ess must be a number > 0, got nan"),
    ("flag palim negative", ["learn", "good.csv", "--palim", "-1"], E, r"--palim must be an integer >= 0 or \"auto\", got -1"),
    ("flag unknown option", ["learn", "good.csv", "--bogus"], 2, r"unrecognized arguments: --bogus"),
    ("flag score needs -o", ["score", "good.csv"], 2, r"the following arguments are required: -o/--output"),
    ("flag time-limit text", ["learn", "good.csv", "--time-limit", "ten"], 2, r"argument --time-limit: invalid number value"),
    ("flag k text", ["kbest", "good.csv", "-k", "many"], 2, r"argument -k/--k: invalid int value"),
    ("flag enumerate needs bf", ["enumerate", "good.csv"], 2, r"one of the arguments --bf --epsilon is required"),
    ("flag bf and epsilon", ["enumerate", "good.csv", "--bf", "3", "--epsilon", "1"], 2, r"not allowed with argument"),
    ("flag no subcommand", [], 2, r"the following arguments are required: command"),
    ("compare k text", ["compare", "good.csv", "-k", "1,x"], E, r"--k must be a comma-separated list of numbers"),
    ("compare jkl", ["compare", "jkl/good.jkl"], E, r"compare needs data, not a score table"),
    # ------------------------------------------- search and scoring settings (one vocabulary)
    ("flag method typo", ["learn", "good.csv", "--method", "ilpp"], E,
     r"--method must be one of \"auto\", \"ilp\", .*got \"ilpp\" \(did you mean \"ilp\"\?\)"),
    ("flag method cannot enumerate", ["enumerate", "good.csv", "--bf", "3", "--method", "dp"], E,
     r"--method \"dp\" cannot compute every network within a Bayes factor; methods that can: auto, "),
    ("flag method cannot learn", ["learn", "good.csv", "--method", "resolve"], E,
     r"--method \"resolve\" cannot compute an optimal network"),
    ("flag by typo", ["enumerate", "good.csv", "--bf", "3", "--by", "klass"], E,
     r"--by must be one of \"auto\", \"class\", \"dag\", got \"klass\" \(did you mean \"class\"\?\)"),
    ("flag kbest by auto", ["kbest", "good.csv", "-k", "2", "--by", "auto"], E,
     r"--by must be one of \"dag\", \"class\", got \"auto\""),
    ("flag gap with ordergraph", ["learn", "good.csv", "--method", "ordergraph", "--gap", "0.1"], E,
     r"--gap does not apply to --method ordergraph \(only to ilp\)"),
    ("flag seed with ilp", ["learn", "good.csv", "--method", "ilp", "--seed", "3"], E,
     r"--seed does not apply to --method ilp \(only to asobs\)"),
    ("flag seed with auto", ["learn", "good.csv", "--seed", "3"], E,
     r"--seed applies only to --method asobs, which auto never picks; give --method asobs"),
    ("flag order unknown", ["learn", "good.csv", "--order", "a,b,c,d,zz"], E, r"--order names unknown variable \"zz\""),
    ("flag order duplicate", ["learn", "good.csv", "--order", "a,b,c,d,d"], E, r"--order lists variable \"d\" twice"),
    ("flag order missing", ["enumerate", "good.csv", "--bf", "3", "--order", "a,b,c"], E,
     r"--order must list every variable once; missing: \"d\", \"e\""),
    ("flag order empty item", ["learn", "good.csv", "--order", "a,,b"], E, r"--order must be comma-separated variable names"),
    ("flag order with method", ["learn", "good.csv", "--order", "a,b,c,d,e", "--method", "ilp"], E,
     r"--method \"ilp\" does not apply with --order: .*must be \"auto\""),
    ("flag order with constraints", ["learn", "good.csv", "--order", "a,b,c,d,e", "--constraints",
                                     "constraints/unknown_var.con"], E,
     r"--order cannot be combined with --constraints \(the fixed-order search honours the order only\)"),
    ("flag order with lower bound", ["learn", "good.csv", "--order", "a,b,c,d,e", "--lower-bound", "auto"], E,
     r"scoring option lower_bound does not apply under an order"),
    ("flag order by class", ["enumerate", "good.csv", "--bf", "3", "--order", "a,b,c,d,e", "--by", "class"], E,
     r"--by \"class\" does not apply with --order \(the networks that follow an order"),
    ("flag order global gap table", ["learn", "gg.jkl", "--order", "a,b"], E,
     r"pruned with the global gap rule \(lower_bound; 2 parent sets removed\)"),
    ("flag order table smaller gap", ["enumerate", "w3.jkl", "--bf", "20", "--order", "a,b"], E,
     r"pruned for epsilon=1.09861\b.* may lack parent sets of networks within epsilon=2.99573"),
    ("flag backend typo", ["learn", "good.csv", "--backend", "daks"], E,
     r"--backend must be one of \"serial\", \"processes\", \"dask\", got \"daks\" \(did you mean \"dask\"\?\)"),
    ("flag backend serial n-jobs", ["learn", "good.csv", "--backend", "serial", "--n-jobs", "2"], E,
     r"--backend \"serial\" scores in-process: --n-jobs must be 1 or not given, got 2"),
    ("flag scheduler without dask", ["learn", "good.csv", "--scheduler", "tcp://x:1"], E, r"--scheduler .* needs --backend dask"),
    ("flag dask without scheduler", ["learn", "good.csv", "--backend", "dask"], E, r"--backend \"dask\" needs --scheduler"),
    ("flag n-jobs zero", ["learn", "good.csv", "--n-jobs", "0"], E, r"--n-jobs must be an integer >= 1, or -1 \(every core\), got 0"),
    ("flag memory-limit zero", ["learn", "good.csv", "--memory-limit", "0"], E, r"--memory-limit must be a number >= 1 \(bytes\), got 0"),
    ("flag lower-bound text", ["learn", "good.csv", "--lower-bound", "high"], E,
     r"--lower-bound must be a number or \"auto\", got \"high\""),
    ("flag lower-bound inf", ["learn", "good.csv", "--lower-bound", "inf"], E, r"--lower-bound must be a finite number"),
    ("flag palim text", ["learn", "good.csv", "--palim", "all"], E, r"--palim must be an integer >= 0 or \"auto\", got \"all\""),
    ("flag score typo registry", ["enumerate", "good.csv", "--bf", "3", "--score", "K3"], E,
     r"--score must be one of \"BIC\", \"AIC\", \"BDeu\", \"K2\", \"BDs\", \"bic-g\", \"aic-g\", \"bge\", got \"K3\""),
    ("jkl with --n-jobs", ["learn", "jkl/good.jkl", "--n-jobs", "2"], E, r"--n-jobs cannot apply: good.jkl is a score table"),
    ("jkl with --memory-limit", ["enumerate", "jkl/good.jkl", "--bf", "3", "--memory-limit", "10"], E,
     r"--memory-limit cannot apply"),
    ("config method typo", ["run", "configs/method_typo.toml"], E,
     r"\[search\] method must be one of \"auto\", \"ilp\", .*got \"ilpp\" \(did you mean \"ilp\"\?\)"),
    ("config method cannot enumerate", ["run", "configs/method_cannot_enumerate.toml"], E,
     r"\[search\] method \"dp\" cannot compute every network within a Bayes factor; methods that can: auto, "),
    ("config method for score", ["run", "configs/method_for_score.toml"], E, r"\[search\] method does not apply to job \"score\""),
    ("config kbest by auto", ["run", "configs/kbest_by_auto.toml"], E, r"\[search\] by must be one of \"dag\", \"class\", got \"auto\""),
    ("config order unknown", ["run", "configs/order_unknown_variable.toml", "-q"], E,
     r"\[search\] order names unknown variable \"zz\""),
    ("config order duplicate", ["run", "configs/order_duplicate.toml", "-q"], E, r"\[search\] order lists variable \"d\" twice"),
    ("config order missing", ["run", "configs/order_missing.toml", "-q"], E,
     r"\[search\] order must list every variable once; missing: \"d\", \"e\""),
    ("config order string", ["run", "configs/order_string.toml"], E,
     r"\[search\] order must be a list of variable names, first to last, got \"a,b,c,d,e\""),
    ("config order with method", ["run", "configs/order_with_method.toml"], E,
     r"\[search\] method = \"ilp\" does not apply with \[search\] order"),
    ("config order with lower bound", ["run", "configs/order_with_lower_bound.toml"], E,
     r"\[scoring\] lower_bound does not apply with \[search\] order"),
    ("config order with constraints", ["run", "configs/order_with_constraints.toml"], E,
     r"\[search\] order cannot be combined with \[constraints\]"),
    ("config dask without scheduler", ["run", "configs/dask_without_scheduler.toml"], E,
     r"\[scoring\] backend = \"dask\" needs \[scoring\] scheduler"),
    ("config serial with n_jobs", ["run", "configs/serial_with_n_jobs.toml"], E,
     r"\[scoring\] backend = \"serial\" scores in-process: \[scoring\] n_jobs must be 1 or not given, got 2"),
    ("config n_jobs zero", ["run", "configs/n_jobs_zero.toml"], E,
     r"\[scoring\] n_jobs must be an integer >= 1, or -1 \(every core\), got 0"),
    ("config memory_limit zero", ["run", "configs/memory_limit_zero.toml"], E, r"\[scoring\] memory_limit must be a number >= 1 \(bytes\), got 0"),
    ("config palim text", ["run", "configs/palim_text.toml"], E, r"\[scoring\] palim must be an integer >= 0 or \"auto\", got \"all\""),
    ("config jkl with n_jobs", ["run", "configs/jkl_with_n_jobs.toml"], E,
     r"\[scoring\] n_jobs cannot apply: \[data\] path good.jkl is a score table"),
    ("run --method typo", ["run", "configs/gap_negative.toml", "--set", "limits.gap=0", "--method", "ilpp"], E,
     r"command line: --method must be one of .*got \"ilpp\""),
    ("run --order unknown", ["run", "configs/gap_negative.toml", "--set", "limits.gap=0", "--order", "a,b,c,d,zz",
                             "-q"], E, r"\[search\] order names unknown variable \"zz\""),
    # ------------------------------------------------------------------ outputs
    ("score -o under a file", ["score", "good.csv", "-o", "good.csv/x.jkl"], E, r"cannot write good.csv/x.jkl: good.csv is not a folder"),
    ("score -o folder", ["score", "good.csv", "-o", "foreign"], E, r"output foreign is a folder, expected a file name"),
    ("score -o foreign file", ["score", "good.csv", "-o", "mine.jkl"], E,
     r"mine.jkl exists and was not written by gobnilp-py; choose another name, or pass --force"),
    ("score -o through a file", ["score", "good.csv", "-o", "out_is_file/x.jkl"], E, r"out_is_file is not a folder"),
    ("enumerate -o foreign folder", ["enumerate", "good.csv", "--bf", "3", "-o", "foreign"], E,
     r"foreign holds 'notes.txt', which gobnilp-py did not write; .*--force"),
    ("enumerate -o is a file", ["enumerate", "good.csv", "--bf", "3", "-o", "out_is_file"], E, r"out_is_file exists and is not a folder"),
    ("kbest -o foreign folder", ["kbest", "good.csv", "-k", "3", "-o", "foreign"], E, r"foreign holds 'notes.txt'"),
    ("compare -o foreign folder", ["compare", "good.csv", "-o", "foreign"], E, r"foreign holds 'notes.txt'"),
]


def test_the_corpus_is_large_and_ids_unique():
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))
    assert len(CASES) >= 100


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    root = tmp_path / "w"
    shutil.copytree(CORPUS, root)
    _make_runtime_files(root)
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_touches_nothing(case, corpus, capsys):
    _id, argv, status, pattern = case
    before = _snapshot(corpus)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: a bad flag
        code = exc.code
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == status, (code, err[:2000])
    assert len(lines) == 1, err[:2000]
    assert lines[0].startswith("gobnilp-py: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    assert re.search(pattern, lines[0]), lines[0]
    assert out == "", out
    assert _snapshot(corpus) == before, "a file was created, changed or removed"
    assert not list(Path("/tmp").glob("gobnilp-should-not-exist*"))
