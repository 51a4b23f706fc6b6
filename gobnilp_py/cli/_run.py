"""``gobnilp-py run CONFIG``: one job from a TOML config or a GOBNILP settings file.

Flags override config values (``--bf 20``, ``--time-limit 60``,
``--output-dir out``, the data flags of the other commands (``--no-header``,
``--delimiter``, ``--arities``, ``--missing-values``, ``--states``),
``--score BDeu --ess 10 --palim 2``,
``--set section.key=value``), each checked by the config's own vocabulary and
named in its message (``command line: --palim must be ...``).  The whole config is
validated before any work; a bad one is one line naming the file and key.
``--check`` stops after validation.  Progress goes to stderr (``--quiet``
silences it); the summary, headed by the result's guarantee, goes to stdout.
An infeasible problem writes its (labelled) folder and exits 1; an
interrupted search writes its labelled partial result and exits 130 / 143.
"""

from __future__ import annotations

import argparse
import math
import sys

from .._wording import printable
from ._options import TIME_LIMIT_HELP, _int_text, add_common_options, add_data_options, data_overrides, number

__all__ = ["register"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run one job from a TOML config (or a GOBNILP settings file)",
                       description="Run the job a config file describes (score, learn, enumerate or kbest) and "
                       "write the outputs it names. Relative paths in the file resolve against its folder; "
                       "flags override the file. See docs/configuration.md.")
    p.add_argument("config", help="TOML run config, or a GOBNILP settings file (e.g. gobnilp.set)")
    p.add_argument("--data", default=None, help="data file (overrides [data] path; needed for a settings file)")
    p.add_argument("--job", default=None, choices=["score", "learn", "enumerate", "kbest"],
                   help="override [search] job")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--bf", dest="bayes_factor", type=number, default=None, help="override [search] bayes_factor")
    g.add_argument("--epsilon", type=number, default=None, help="override [search] epsilon (= ln BF)")
    p.add_argument("-k", "--k", dest="k", type=int, default=None, help="override [search] k")
    add_data_options(p, overrides=True)
    p.add_argument("--score", default=None, help="override [scoring] score")
    p.add_argument("--ess", type=number, default=None, help="override [scoring] ess (BDeu equivalent sample size)")
    p.add_argument("--alpha-mu", type=number, default=None, help="override [scoring] alpha_mu (score bge)")
    p.add_argument("--alpha-w", type=number, default=None, help="override [scoring] alpha_w (score bge)")
    p.add_argument("--nu", default=None, metavar="M1,M2,...",
                   help="override [scoring] nu (score bge): the prior mean, one number per variable")
    p.add_argument("--palim", default=None,
                   help='override [scoring] palim: maximum number of parents, or "auto" (the parent-count bound '
                        "provably safe for the gap)")
    p.add_argument("--method", default=None,
                   help="override [search] method (a method of the registry, or auto; see 'learn --help')")
    p.add_argument("--by", default=None, help="override [search] by (auto, class or dag)")
    p.add_argument("--verify", action="store_const", const=True, default=None,
                   help="override [search] verify: cross-check with a second exact method")
    p.add_argument("--order", default=None, metavar="A,B,C",
                   help="override [search] order: comma-separated variable names, every variable once")
    p.add_argument("--time-limit", type=number, default=None,
                   help="override [limits] time_limit: " + TIME_LIMIT_HELP)
    p.add_argument("--max-networks", type=int, default=None, help="override [limits] max_networks")
    p.add_argument("-o", "--output-dir", default=None, help="override [output] dir (relative to the working folder)")
    p.add_argument("--write", default=None,
                   help="override [output] write: comma-separated output names (json,csv,pictures,report,...)")
    p.add_argument("--report", choices=["markdown", "html"], default=None, help="override [output] report_format")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override any key (value in TOML syntax, e.g. --set scip.limits/nodes=100); repeatable")
    p.add_argument("--force", action="store_const", const=True, default=None,
                   help="override [output] force: write into a folder holding files gobnilp-py did not write")
    p.add_argument("--check", action="store_true", help="validate the config and stop (no work, no output)")
    add_common_options(p)
    p.set_defaults(func=run)


def _overrides(args: argparse.Namespace) -> list[tuple]:
    from ..app.config import parse_override

    out: list[tuple] = list(data_overrides(args))
    flags = [("job", "search", "job", "--job"), ("bayes_factor", "search", "bayes_factor", "--bf"),
             ("epsilon", "search", "epsilon", "--epsilon"), ("k", "search", "k", "-k"),
             ("score", "scoring", "score", "--score"),
             ("ess", "scoring", "ess", "--ess"), ("palim", "scoring", "palim", "--palim"),
             ("alpha_mu", "scoring", "alpha_mu", "--alpha-mu"), ("alpha_w", "scoring", "alpha_w", "--alpha-w"),
             ("method", "search", "method", "--method"),
             ("by", "search", "by", "--by"), ("verify", "search", "verify", "--verify"),
             ("time_limit", "limits", "time_limit", "--time-limit"),
             ("max_networks", "limits", "max_networks", "--max-networks"),
             ("output_dir", "output", "dir", "--output-dir"), ("report", "output", "report_format", "--report"),
             ("force", "output", "force", "--force")]
    args.palim = _int_text(args.palim)      # "3" -> 3 for the shared check; "auto" and bad text as written
    for attr, section, key, flag in flags:
        value = getattr(args, attr)
        if value is not None:
            out.append((section, key, value, flag))
    if args.nu is not None:
        from .._validation import parse_number_list

        out.append(("scoring", "nu", list(parse_number_list(args.nu, "--nu")), "--nu"))
    if args.order is not None:
        from .._validation import parse_order

        out.append(("search", "order", parse_order(args.order, "--order"), "--order"))
    if args.write is not None:
        out.append(("output", "write", [w.strip() for w in args.write.split(",") if w.strip()], "--write"))
    for text in args.sets:
        section, key, value = parse_override(text)
        out.append((section, key, value, f"--set {text.split('=', 1)[0].strip()}"))
    return out


def run(args: argparse.Namespace) -> int:
    from ..app.config import load_config
    from ..app.runner import check_run, phases_of, run_job
    from ..progress import Progress
    from ._results import exit_code, say_infeasible

    quiet = bool(args.quiet)
    cfg = load_config(args.config, _overrides(args), data=args.data)
    if args.check:
        where = f", writing {', '.join(cfg.outputs)} to {cfg.output_dir}" if cfg.output_dir else ""
        data = check_run(cfg)
        shape = f" ({data.N} rows x {data.n} variables)" if hasattr(data, "N") else f" ({data.n} variables)"
        print(printable(f"{args.config}: OK: job {cfg.job} on {cfg.data_path}{shape}{where}"))
        return 0
    progress = Progress.for_terminal(phases_of(cfg), quiet=quiet,
                                     time_limit=cfg.values["limits"]["time_limit"])
    res = run_job(cfg, progress, started=getattr(args, "started", None), stop_reading=True)
    _summary(res, quiet)
    say_infeasible(res.result)
    return exit_code(res.result)


def _summary(res, quiet: bool) -> None:
    from ._results import display, gobnilp_display, opt_text, print_notes

    r, job = res.result, res.job
    print_notes(r)
    if job == "score":
        print(f"{len(r)} candidate parent sets for {r.n} variables ({r.score_name}, epsilon={r.epsilon or 0:.6g})")
    elif job == "learn":
        if math.isfinite(r.score):         # else no network: the notes above say why
            print(gobnilp_display(r), end="")
        print(f"status: {r.status}")
    else:
        opt = opt_text(r)
        print(f"{r.count_line()}; OPT = {opt}, "
              f"epsilon = {r.epsilon:.6g} "
              f"(BF {r.bayes_factor:.6g})")
        for i, net in enumerate(r.networks[:5], 1):
            print(f"{i:>4}  {net.score:.6f}  {display(net)}")
        if len(r) > 5:
            print(f"  ... {len(r) - 5} more")
    if res.files and not quiet:
        folder = res.files[0].parent
        print(printable(f"wrote {len(res.files)} files to {folder}: {', '.join(f.name for f in res.files)}"),
              file=sys.stderr)
