"""``gobnilp-py enumerate`` and ``gobnilp-py kbest``: collections of networks.

``-o DIR`` writes ``networks.csv`` and ``summary.json`` through the same
all-or-nothing folder as ``gobnilp-py run`` (:class:`~gobnilp_py.output.StagedFolder`):
checked before the work, never over a file gobnilp-py did not write unless
``--force``, and each file labelled with the result's guarantee.
``-o DIR --write NAMES`` writes instead the outputs ``run`` would write for
the same job (same names, files and report; ``json`` is then ``result.json``):
the flags become the config keys they stand for (:func:`._options.output_config`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from .._wording import printable
from ._options import JSON_SECONDS_PER_NETWORK_VARIABLE, WRITE_FIXED_SECONDS, WRITE_SECONDS_PER_NETWORK_VARIABLE, \
    add_common_options, \
    add_data_options, add_force, add_method_options, add_scoring_options, add_time_limit, add_write, check_order_flag, \
    command_budget, method_kwargs, number, output_config, read_input, scoring_kwargs

__all__ = ["register", "write_collection"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("enumerate", help="every network within a Bayes factor of the optimum",
                       description="Find every network whose score is within ln(BF) of the optimum (epsilon-BNSL), "
                       "exactly, with their Markov equivalence classes.")
    _common(p)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--bf", type=number, dest="bayes_factor", help="Bayes factor (>= 1)")
    g.add_argument("--epsilon", type=number, help="score gap, epsilon = ln BF (>= 0)")
    p.add_argument("--max-networks", type=int, default=150_000,
                   help="stop after this many networks (result labelled INCOMPLETE; default 150000)")
    add_method_options(p, "enumerate")
    p.set_defaults(func=run_enumerate)

    k = sub.add_parser("kbest", help="the k best networks, provably",
                       description="Find the k highest-scoring networks, best first (ties in canonical order).")
    _common(k)
    k.add_argument("-k", "--k", dest="k", type=int, required=True, help="number of networks")
    add_method_options(k, "kbest")
    k.set_defaults(func=run_kbest)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", help="data file (CSV or .dat) or a .jkl score file")
    add_data_options(p)
    add_scoring_options(p, epsilon=False)
    p.add_argument("--constraints", default=None, help="GOBNILP-style constraints file")
    add_time_limit(p)
    p.add_argument("--json", action="store_true", help="print one JSON object (with every network)")
    p.add_argument("--posterior", action="store_true",
                   help="compute how much of the posterior over all DAGs the set holds even when it is costly "
                   "(done without asking up to 16 variables), and show the exact edge posteriors beside the "
                   "set's averages with the largest difference")
    p.add_argument("-o", "--output-dir", default=None,
                   help="write networks.csv and summary.json (or the --write outputs) into this folder")
    add_write(p)
    add_force(p)
    add_common_options(p)


def _prepare(args: argparse.Namespace, command: str) -> tuple[object, dict]:
    """Checks that need no work (flags, the output folder), then the data; the keyword arguments of the driver.

    ``kw["time_limit"]`` is the command's :class:`~gobnilp_py._budget.Budget`, started before reading and
    told what writing each listed network will cost (``-o``, ``--json``), so the collection leaves it.
    With ``--write`` also the run config of the outputs (``args.output_cfg``), checked against the data
    before the work as ``run`` checks it (names a format cannot hold, the width).
    """
    from .._validation import check_names_for
    from ..errors import ConfigError, ParameterError
    from ..output.folder import check_output_folder

    budget = command_budget(args)
    search = method_kwargs(args, command)
    if args.output_dir:
        check_output_folder(Path(args.output_dir), force=args.force)
    source = read_input(args, budget)
    n_vars = len(source.names)  # type: ignore[attr-defined]
    budget.per_network = n_vars * ((WRITE_SECONDS_PER_NETWORK_VARIABLE if args.output_dir else 0.0)
                                   + (JSON_SECONDS_PER_NETWORK_VARIABLE if args.json else 0.0))
    check_order_flag(search, source)
    args.output_cfg = output_config(args, command, search)
    if args.output_cfg is not None:
        from ..app.runner import check_before_work

        is_table = hasattr(source, "families")
        check_before_work(args.output_cfg, None if is_table else source, source if is_table else None)
        args.source = source
    elif args.output_dir:
        try:
            check_names_for(source.names, ["modelstring"], where="networks.csv")  # type: ignore[attr-defined]
        except ParameterError as exc:
            raise ConfigError(str(exc)) from None
    if args.posterior:
        _check_posterior_request(args, source, search)
    kw = {} if hasattr(source, "families") else scoring_kwargs(args)
    kw.pop("bayes_factor", None)
    kw.pop("epsilon", None)
    if args.constraints:
        kw["constraints"] = args.constraints
    kw.update(search)
    args.budget = budget     # the whole command's: pictures asked with --write are skipped when it runs out
    if args.output_dir and budget.time_limit is not None:    # writing the folder has a cost of its own
        budget = budget.ending_before(min(WRITE_FIXED_SECONDS, 0.1 * budget.time_limit))
    kw["time_limit"] = budget
    return source, kw


def _check_posterior_request(args: argparse.Namespace, source: Any, search: dict) -> None:
    """``--posterior`` that cannot be met (a pruned table, constraints or an order it cannot take): one line,
    before the work."""
    from ..errors import ParameterError
    from ..solve.inputs import as_constraints
    from ..solve.set_posterior import refusal_before_work

    is_table = hasattr(source, "families")
    why = refusal_before_work(None if is_table else source, source if is_table else None,
                              as_constraints(args.constraints) if args.constraints else None)
    if why is not None:
        raise ParameterError(f"cannot be met: {why}", "--posterior")


def _posterior_step(args: argparse.Namespace, cs: Any, budget: Any) -> None:
    """How much of the posterior the set holds: computed when asked or cheap, within the command's limits."""
    from ..solve.set_posterior import posterior_step

    args.posterior_line = posterior_step(cs, requested=args.posterior, budget=budget,
                                         memory_limit=budget.memory_limit)


def run_enumerate(args: argparse.Namespace) -> int:
    from .. import enumerate_networks
    from .._validation import check_bayes_factor_epsilon, check_max_networks
    from ..errors import ParameterError

    try:
        check_bayes_factor_epsilon(args.bayes_factor, args.epsilon, required=True)
    except ParameterError as exc:
        raise ParameterError(exc.problem, {"bayes_factor": "--bf", "epsilon": "--epsilon"}.get(exc.name or "",
                                                                                                 exc.name)) from None
    check_max_networks(args.max_networks, "--max-networks")
    source, kw = _prepare(args, "enumerate")
    from ..progress import Progress

    t0 = time.perf_counter()
    with Progress.for_terminal((), quiet=args.quiet, deadline=kw["time_limit"].deadline) as progress:
        cs = enumerate_networks(source, bayes_factor=args.bayes_factor, epsilon=args.epsilon,
                                max_networks=args.max_networks, progress=progress, **kw)
        _posterior_step(args, cs, kw["time_limit"])
    args.solve_seconds = time.perf_counter() - t0
    return _report(args, cs)


def run_kbest(args: argparse.Namespace) -> int:
    from .. import kbest
    from .._validation import check_positive_int

    check_positive_int(args.k, "-k")
    source, kw = _prepare(args, "kbest")
    from ..progress import Progress

    t0 = time.perf_counter()
    with Progress.for_terminal((), quiet=args.quiet, deadline=kw["time_limit"].deadline) as progress:
        cs = kbest(source, args.k, progress=progress, **kw)
        _posterior_step(args, cs, kw["time_limit"])
    args.solve_seconds = time.perf_counter() - t0
    return _report(args, cs)


def _summary_dict(cs: Any) -> dict:
    from ..output.writers import labels
    from ..solve.set_posterior import edge_comparison

    out = {**cs.to_dict(), **labels(cs)}
    comparison = edge_comparison(cs)
    if comparison is not None:
        out["posterior"] = comparison
    return out


def _report(args: argparse.Namespace, cs: Any) -> int:
    from .._json import dumps
    from ._results import display, exit_code, opt_text, print_notes, say_infeasible

    if getattr(args, "output_cfg", None) is not None:
        from ..app.runner import RunResult, phases_for, write_outputs
        from ..progress import Progress

        cfg, source = args.output_cfg, args.source
        is_table = hasattr(source, "families")
        res = RunResult(cfg, cs, dataset=None if is_table else source, table=source if is_table else None)
        with Progress.for_terminal(phases_for(cfg.job, cfg.outputs)[-2:], quiet=args.quiet) as progress:
            progress.timings["solving"] = args.solve_seconds  # scoring included: the driver scores the data
            paths = write_outputs(res, progress, args.budget)
        if not args.quiet:
            print(printable(f"wrote {len(paths)} files to {cfg.output_dir}: {', '.join(p.name for p in paths)}"),
                  file=sys.stderr)
    elif args.output_dir:
        paths = write_collection(cs, Path(args.output_dir), force=args.force)
        if not args.quiet:
            print(printable("wrote " + " and ".join(str(p) for p in paths)), file=sys.stderr)
    if args.json:
        print(dumps(_summary_dict(cs)))
    else:
        opt = opt_text(cs)
        print_notes(cs, getattr(args, "posterior_line", None))
        print(f"{cs.count_line()}; OPT = {opt}, "
              f"epsilon = {cs.epsilon:.6g} (BF {cs.bayes_factor:.6g})")
        for i, net in enumerate(cs.networks[:10], 1):
            print(f"{i:>4}  {net.score:.6f}  {display(net)}")
        if len(cs) > 10:
            print(f"  ... {len(cs) - 10} more" + (" (use -o DIR or --json for all)" if not args.output_dir else ""))
        if args.posterior:
            _print_comparison(cs)
    say_infeasible(cs)
    return exit_code(cs)


#: ``--posterior`` shows the pairs whose set average or exact posterior is at least this (the JSON holds all).
SHOWN_EDGE_PROBABILITY = 0.05


def _print_comparison(cs: Any) -> None:
    """The exact edge posteriors beside the set's averages (``--posterior``), and the largest difference."""
    from ..solve.set_posterior import edge_comparison

    c = edge_comparison(cs)
    if c is None:
        post = cs._posterior
        why = cs.posterior_mass_note if post is None else post.guarantee
        print(printable(f"exact edge posteriors: not available ({why})"))
        return
    names, exact = c["edge_probabilities"]["names"], c["edge_probabilities"]["matrix"]
    avg = cs.edge_probabilities().reindex(index=names, columns=names).to_numpy()
    rows = [(max(exact[i][j], avg[i][j]), names[i], names[j], avg[i][j], exact[i][j])
            for i in range(len(names)) for j in range(i + 1, len(names))]
    rows = sorted((r for r in rows if r[0] >= SHOWN_EDGE_PROBABILITY), key=lambda r: (-r[0], r[1], r[2]))
    print(f"edge posteriors (adjacency, either direction): set average {cs.averages_over} vs exact over all DAGs "
          f"(pairs with either >= {SHOWN_EDGE_PROBABILITY:g})")
    for _, u, v, a, e in rows:
        gap = a - e if abs(a - e) >= 5e-5 else 0.0      # no "-0.0000" for float noise
        print(printable(f"  {u} - {v}: set {a:.4f}  exact {e:.4f}  difference {gap:+.4f}"))
    d = c["max_edge_difference"]
    print(printable(f"largest difference {d['value']:.4f} ({d['u']} - {d['v']}: set {d['set']:.4f}, "
                    f"exact {d['exact']:.4f})"))


def write_collection(cs: Any, folder: Path, *, force: bool = False) -> list[Path]:
    """Write networks.csv and summary.json into ``folder``, all or nothing, each labelled with the guarantee.

    Uses :class:`~gobnilp_py.output.StagedFolder`: files are staged beside the
    folder and moved into place together; a folder holding files gobnilp-py
    did not write is refused unless ``force``.
    """
    from ..output.folder import StagedFolder
    from ..output.writers import collection_json, guarantee_of, networks_csv

    with StagedFolder(folder, force=force) as staged:
        staged.write_text("networks.csv", networks_csv(cs))
        staged.write_text("summary.json", collection_json(cs))  # to_json(_summary_dict(cs)), from the arrays
        return staged.commit(f"written by gobnilp-py {getattr(cs, 'kind', 'enumerate')}; {guarantee_of(cs)}")
