"""The Python API: ``ssdco.evaluate`` (also ``ssdco.whatif``), ``ssdco.validate``, ``ssdco.optimize``, ``ssdco.sweep``.

Each function takes a loaded :class:`~ssdco.spec.Config` or the path of a device configuration TOML (then
``controller`` and ``overrides`` work as the command line's ``--controller`` and ``--set``), and uses the same
defaults as the command line (:mod:`ssdco.defaults`). Heavy modules (the model, numba, the DES) are imported
inside the functions, so ``import ssdco`` stays light.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from ssdco import defaults

if TYPE_CHECKING:  # pragma: no cover
    from ssdco.model.result import Result
    from ssdco.optimizer.search import OptimizeResult
    from ssdco.spec import Config
    from ssdco.validation.compare import Validation


def _as_config(config, controller, overrides) -> Config:
    """``config`` as a :class:`Config`: loaded from a path, or rebuilt with ``controller``/``overrides``."""
    from ssdco.spec import Config, apply_overrides, config_from_dict, load_config

    overrides = list(overrides or ())
    if isinstance(config, (str, os.PathLike)):
        return load_config(config, controller=controller, overrides=overrides)
    if not isinstance(config, Config):
        raise TypeError(f"config: expected a Config (ssdco.load_config) or a path to a TOML file, "
                        f"got {type(config).__name__}")
    if controller is None and not overrides:
        return config
    raw = apply_overrides(dict(config.raw), overrides) if overrides else dict(config.raw)
    return config_from_dict(raw, source=config.source, base_dir=Path(config.source).parent,
                            controller=controller if controller is not None else config.controller)


def evaluate(config: Config | str | os.PathLike[str], *, controller: str | None = None,
             overrides: Sequence[str] = (), effort: str = "full") -> Result:
    """Answer "what if?" for one design with the analytic model (``ssdco whatif``).

    Parameters
    ----------
    config : Config or path
        A configuration from :func:`ssdco.load_config`, or the path of a device configuration TOML.
    controller : str, optional
        A controller preset name (``"c07"``) or controller TOML file, as ``--controller``.
    overrides : sequence of str
        ``"path.to.field=value"`` overrides (TOML literals), as ``--set``; e.g.
        ``["workload.queue_depth=64"]``.
    effort : {"full", "fast", "screen", "exact"}
        ``"full"`` (default): every solver in its domain. ``"fast"`` (``whatif --fast``): the Markov chain of the
        requests' draws only within its first states, milliseconds instead of up to seconds at queue depth 1-8,
        less accurate at queue depth 2-5 (a caveat says where). ``"screen"``: no chain and no platoon stage (the
        optimizer's first pass). ``"exact"``: the exact exponential product-form solution (``whatif --exact``).

    Returns
    -------
    Result
        IOPS, latency (us), utilisation, bottleneck, bounds (``bounds.capacity_iops`` ...), power (mW),
        budgets. ``result.to_frame()`` gives a one-row DataFrame.

    Raises
    ------
    ConfigError
        A malformed file, field or override, naming the file, field, value and what is allowed.
    """
    from ssdco.model.whatif import evaluate as _evaluate

    return _evaluate(_as_config(config, controller, overrides), effort=effort)


whatif = evaluate


def validate(config: Config | str | os.PathLike[str], *, controller: str | None = None,
             overrides: Sequence[str] = (), requests: int = defaults.DES_REQUESTS, seed: int = defaults.SEED,
             replications: int | str = defaults.REPLICATIONS, fast: bool = False,
             timing_spread_scv: float | None = None, progress: bool = False) -> Validation:
    """Run the analytic model and the embedded discrete-event simulator (DES) side by side (``ssdco validate``).

    Parameters
    ----------
    config : Config or path
        A configuration from :func:`ssdco.load_config`, or the path of a device configuration TOML.
    controller : str, optional
        Controller preset name or file, as ``--controller``.
    overrides : sequence of str
        ``"path.to.field=value"`` overrides, as ``--set``.
    requests : int
        Requests the DES completes (10 % warm-up discarded); default as ``validate --requests``.
    seed : int
        DES seed: the same seed gives identical results.
    replications : int or "auto"
        Extra DES runs from other seeds, each of a quarter of ``requests``, checking that the DES's IOPS
        does not depend on its seed; ``"auto"``: 4 on closed deterministic workloads, else 0.
    fast : bool
        Check ``evaluate(..., effort="fast")``'s answer instead of the full model's.
    timing_spread_scv : float, optional
        Also run the DES with every service time varying (squared coefficient of variation at least this).
    progress : bool
        A progress bar on stderr.

    Returns
    -------
    Validation
        ``verdict`` ("AGREE", "DISAGREE" or "UNSETTLED"), ``analytic`` (a Result), ``des`` (the DES's
        measurements: ``iops``, ``mean_latency_us``, ``p99_us``, ``latency_cdf_us``), ``relative_error``
        (model / DES - 1). ``to_frame()`` gives a one-row DataFrame.

    Raises
    ------
    ConfigError
        Bad input, or an open workload beyond capacity (no steady state for the DES to measure).
    """
    from ssdco.errors import ConfigError
    from ssdco.sim.des import MAX_REQUESTS, min_requests
    from ssdco.sim.replications import MAX_REPLICATIONS
    from ssdco.validation.compare import validate as _validate

    if isinstance(requests, bool) or not isinstance(requests, int) or not min_requests() <= requests <= MAX_REQUESTS:
        raise ConfigError("ssdco.validate", "requests", requests,
                          f"expected an integer in [{min_requests():,}, {MAX_REQUESTS:,}]")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError("ssdco.validate", "seed", seed, "expected an integer >= 0")
    if replications != "auto" and (isinstance(replications, bool) or not isinstance(replications, int)
                                   or not 0 <= replications <= MAX_REPLICATIONS):
        raise ConfigError("ssdco.validate", "replications", replications,
                          f"expected auto or an integer in [0, {MAX_REPLICATIONS:,}]")
    return _validate(_as_config(config, controller, overrides), requests=requests, seed=seed, progress=progress,
                     replications=replications, markov_chain=not fast, timing_spread_scv=timing_spread_scv)


def optimize(config: Config | str | os.PathLike[str], *, min_iops: float | None = None,
             core_power_mw: float | None = None, dram_power_mw: float | None = None,
             max_latency_us: float | None = None, overrides: Sequence[str] = (), verify_des: bool | None = None,
             fast: bool = False, min_life_years: float | None = None, timing_spread_scv: float | None = None,
             explain: bool = False, pareto_front: bool = False,
             options: Mapping[str, Any] | None = None, max_p99_us: float | None = None,
             max_p999_us: float | None = None) -> OptimizeResult:
    """The cheapest controller design that meets the IOPS/latency target and the power budgets (``ssdco optimize``).

    Parameters
    ----------
    config : Config or path
        The device configuration; its ``[optimizer]`` table describes what may vary (its controller is ignored).
    min_iops : float, optional
        IOPS target at the workload's queue depth (default ``budgets.min_iops``).
    core_power_mw, dram_power_mw : float, optional
        Core-side (cores + accelerators) and DRAM power budgets, mW (default the ``[budgets]`` table's).
    max_latency_us : float, optional
        Mean-latency target, us; at queue depth N it is the IOPS target N / L (Little's law).
    max_p99_us : float, optional
        99th-percentile latency target, us (``--max-p99-us``): the model's p99 estimate screens each candidate and
        the DES's measured p99 verifies the pick.
    max_p999_us : float, optional
        99.9th-percentile latency target, us (``--max-p999-us``): the model has no p99.9 estimate, so its p99
        estimate (a lower bound) screens and the DES's measured p99.9 verifies (``verify_des`` must stay on).
    overrides : sequence of str
        ``"path.to.field=value"`` overrides, as ``--set``.
    verify_des : bool, optional
        Check the pick with the DES too (default ``optimizer.verify_des``); ``False`` as ``--no-des``.
    fast : bool
        Verify with the fast analytic answers (``--fast``); the DES still checks the pick.
    min_life_years : float, optional
        Reject mapping options whose flash wears out sooner at the target IOPS (needs an ``[ftl]`` table).
    timing_spread_scv : float, optional
        Also run the pick's DES with every service time varying (as ``validate``'s ``timing_spread_scv``).
    explain : bool
        Sensitivity: how far each budget/target can move before the pick changes.
    pareto_front : bool
        Enumerate the space and return the Pareto front (cost, IOPS, core-side power) in ``result.pareto``.
    options : mapping, optional
        Any other ``[optimizer]`` key (e.g. ``{"des_requests": 50_000}``); the arguments above win.

    Returns
    -------
    OptimizeResult
        ``status``, ``pick`` (a Design, None when nothing qualifies), ``cost``, ``verdict`` (the pick's model and
        DES figures), ``runners_up``, ``binding``; ``to_frame()`` and ``pareto_frame()`` give DataFrames.
        Never raises for an infeasible target: ``status`` says so and ``message`` explains it.
    """
    from ssdco.optimizer import optimize as _optimize

    opts = dict(options or {})
    if verify_des is not None:
        opts["verify_des"] = bool(verify_des)
    if fast:
        opts["markov_chain"] = False
    if min_life_years is not None:
        opts["min_life_years"] = min_life_years
    if timing_spread_scv is not None:
        opts["timing_spread_scv"] = timing_spread_scv
    return _optimize(_as_config(config, None, overrides), min_iops=min_iops, core_power_mw=core_power_mw,
                     dram_power_mw=dram_power_mw, max_latency_us=max_latency_us, explain=explain,
                     pareto_front=pareto_front, options=opts or None, max_p99_us=max_p99_us,
                     max_p999_us=max_p999_us)


@dataclass(frozen=True)
class SweepTable:
    """The rows of a sweep: one dict per grid point, keyed by the CSV's columns (numbers parsed; None where
    empty). IOPS in ``iops``, latency in us (``latency_us.mean``), power in mW (``power_mw.total``)."""

    columns: tuple[str, ...]
    rows: tuple[Mapping[str, Any], ...]
    axes: tuple[str, ...]  # the grid's fields, in order
    path: Path | None  # the CSV written (None when it was a temporary file)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        return iter(self.rows)

    def __getitem__(self, i: int) -> Mapping[str, Any]:
        return self.rows[i]

    def column(self, name: str) -> list[Any]:
        """The values of one column, in grid order."""
        if name not in self.columns:
            raise KeyError(f"no column {name!r}; columns: {', '.join(self.columns)}")
        return [r.get(name) for r in self.rows]

    def to_frame(self):
        """The rows as a pandas DataFrame (needs pandas: the ``frame`` extra)."""
        from ssdco.display import data_frame

        return data_frame(self.rows, self.columns)

    def _summary_rows(self) -> list[str]:
        shown = [*self.axes, "iops", "latency_us.mean", "power_mw.total"]
        shown += [c for c in ("des.iops", "agrees") if c in self.columns]
        return shown

    def __repr__(self) -> str:
        shown = self._summary_rows()
        lines = [f"<SweepTable {len(self.rows)} points over {', '.join(self.axes)}; {len(self.columns)} columns>",
                 "  " + "  ".join(f"{c:>16}" for c in shown)]
        for r in self.rows[:10]:
            lines.append("  " + "  ".join(f"{_cell_text(r.get(c)):>16}" for c in shown))
        if len(self.rows) > 10:
            lines.append(f"  ... {len(self.rows) - 10} more (to_frame() for all)")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        import html

        shown = self._summary_rows()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in shown)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell_text(r.get(c)))}</td>" for c in shown) + "</tr>"
                       for r in self.rows)
        return (f"<div><b>sweep: {len(self.rows)} points over {html.escape(', '.join(self.axes))}</b> (IOPS; "
                f"latency us; power mW)<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def _cell_text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:,.2f}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


def _parse_cell(text: str) -> Any:
    """A CSV cell back to a value: "" -> None, true/false -> bool, integers, floats, else the text."""
    if text == "":
        return None
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _toml_literal(value: Any) -> str:
    """A Python value as the TOML literal ``--grid`` reads."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):  # a bare word where TOML cannot read it otherwise (the CSV shows c07, not "c07")
        bare = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", value) and value not in ("true", "false", "inf", "nan")
        return value if bare else json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_literal(v) for v in value) + "]"
    raise TypeError(f"grid value {value!r}: expected a number, bool, string or list")


def _grid_specs(grid: Mapping[str, Sequence[Any]] | Sequence[str]) -> list[str]:
    if isinstance(grid, Mapping):
        specs = []
        for field, values in grid.items():
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                raise TypeError(f"grid[{field!r}]: expected a list of values, got {values!r}")
            specs.append(f"{field}=" + ",".join(_toml_literal(v) for v in values))
        return specs
    if isinstance(grid, str):
        return [grid]
    return list(grid)


def _sweep_source(config: Config, controller: str | None) -> tuple[str, str | None]:
    """The file and controller name a sweep of a loaded ``config`` reads again (a sweep works from files)."""
    from ssdco.errors import ConfigError
    from ssdco.spec import load_config

    if not Path(config.source).is_file():
        raise ConfigError(config.source, "config", config.name,
                          "ssdco.sweep reads the configuration from its file: give the TOML path")
    if controller is not None:
        return config.source, controller
    for name in (None, config.controller.name):
        try:
            if load_config(config.source, controller=name) == config:
                return config.source, name
        except ConfigError:
            pass
    raise ConfigError(config.source, "config", config.name,
                      "this Config differs from its file (another controller or overrides); ssdco.sweep reads "
                      "the file: pass its path with controller= and overrides=")


def sweep(config: str | os.PathLike[str] | Config, grid: Mapping[str, Sequence[Any]] | Sequence[str], *,
          controller: str | None = None, overrides: Sequence[str] = (),
          des_requests: int = defaults.SWEEP_DES_REQUESTS, seed: int = defaults.SEED,
          replications: int | str = defaults.SWEEP_REPLICATIONS, fast: bool = False,
          workers: int = defaults.SWEEP_WORKERS, out: str | os.PathLike[str] | None = None,
          progress: bool = False) -> SweepTable:
    """Evaluate a cartesian grid of configuration values (``ssdco sweep``) and return its rows.

    Parameters
    ----------
    config : path or Config
        The device configuration TOML (a Config is swept from its own file, so it must come from one).
    grid : mapping or sequence of str
        ``{"workload.queue_depth": [1, 8, 32]}`` (Python values), or ``--grid``-style strings
        ``["workload.queue_depth=1,8,32"]``. Several axes: their cartesian product, the last fastest.
    controller : str, optional
        Controller preset name or file (or sweep it: ``grid={"controller": ["c01", "c07"]}``).
    overrides : sequence of str
        Fixed ``"path.to.field=value"`` overrides applied at every point.
    des_requests : int
        Also run the DES with this many requests per point (0: the analytic model only).
    seed : int
        DES seed, the same at every point.
    replications : int or "auto"
        Extra DES runs per point from other seeds (needs ``des_requests``).
    fast : bool
        ``evaluate(..., effort="fast")`` at every point.
    workers : int
        Local worker processes (1: this process).
    out : path, optional
        Keep the CSV there (an existing file of the same sweep is resumed); default a temporary file.
    progress : bool
        A progress bar on stderr.

    Returns
    -------
    SweepTable
        One row per grid point (``iops``, ``latency_us.mean`` in us, ``power_mw.total`` in mW, per-station
        ``utilization.*``, and ``des.*`` with the DES); ``to_frame()`` gives a DataFrame.
    """
    from ssdco.spec import Config
    from ssdco.sweep_runner import plan_sweep, read_sweep_csv, run_sweep

    if isinstance(config, Config):
        config_path, controller = _sweep_source(config, controller)
    else:
        config_path = config
    plan = plan_sweep(config_path, _grid_specs(grid), controller=controller, overrides=list(overrides),
                      des_requests=des_requests, seed=seed, replications=replications, fast=fast)
    with tempfile.TemporaryDirectory(prefix="ssdco-sweep-") as tmp:
        path = Path(out) if out is not None else Path(tmp) / "sweep.csv"
        run_sweep(plan, path, workers=workers, progress=progress)
        raw_rows = read_sweep_csv(path)
    rows = tuple({k: _parse_cell(v) for k, v in r.items()} for r in raw_rows)
    return SweepTable(columns=plan.columns, rows=rows, axes=tuple(a.field for a in plan.axes),
                      path=Path(out) if out is not None else None)
