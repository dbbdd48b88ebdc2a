"""``ssdco serve``'s page: a Dash app over one device configuration.

Dash (Plotly's framework for pages driven from Python callbacks) is the ``serve`` extra: it ships its JavaScript,
so the page works on a machine without internet access, and its callbacks keep every figure computed by ssdco's
own functions (:mod:`ssdco.serve.design`). Every change of a control re-evaluates the design with the analytic
model's fast path; the DES runs in a background thread (:mod:`ssdco.serve.jobs`) with a progress bar.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from ssdco import defaults
from ssdco.errors import SsdcoError
from ssdco.serve.design import Control, answer, controls_for, design_config, design_from_values, design_toml
from ssdco.serve.jobs import DesJobs, JobStatus

SERVE_HINT = "the web page needs Dash, which is not installed: pip install 'ssdco[serve]'"
BOTTLENECK_COLOUR = "#c0392b"
STATION_COLOUR = "#5b7fa6"
BUDGET_COLOUR = "#222222"  # budget lines: dark, over a bar of either colour
OVER_COLOUR = "#c0392b"  # a bar over its budget
GRID = {"display": "grid", "gridTemplateColumns": "1fr 1fr", "columnGap": "1em"}  # two controls a row
POLL_MS = 300  # how often the page asks for a DES run's progress
SECTIONS = (("placement", "Where each module runs"), ("accelerators", "Accelerator units"),
            ("cores", "Core groups"), ("nand", "NAND"), ("workload", "Workload"))


class ServeError(SsdcoError):
    """``ssdco serve`` cannot start (Dash missing, the port taken)."""


def require_dash():
    """The ``dash`` module, or :class:`ServeError` naming the ``serve`` extra."""
    try:
        import dash
    except ImportError:
        raise ServeError(SERVE_HINT) from None
    return dash


def _fmt(x: float | None, digits: int = 0, unit: str = "") -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:,.{digits}f}" + (f" {unit}" if unit else "")


def _control_component(c: Control):
    """The Dash component of one control: a dropdown for a choice, a number field (applied on Enter or when it
    loses focus) for a number."""
    from dash import dcc, html

    if c.is_choice:
        field = dcc.Dropdown(id=c.id, options=[{"label": label, "value": v} for v, label in c.options], value=c.value,
                             clearable=False, searchable=False)
    else:
        step = c.step if c.step is not None else (1 if c.integer else "any")
        field = dcc.Input(id=c.id, type="number", value=c.value, min=c.lo, max=c.hi, step=step, debounce=True,
                          style={"width": "8em"})
    label = c.label + (f" ({c.unit})" if c.unit else "")
    return html.Div([html.Label(label, htmlFor=c.id, style={"display": "block", "fontSize": "0.85em"}), field],
                    style={"margin": "0.3em 0"})


def _controls_panel(controls: Sequence[Control]):
    from dash import dcc, html

    parts = []
    for key, title in SECTIONS:
        members = [_control_component(c) for c in controls if c.group == key]
        if members:
            parts.append(html.Fieldset([html.Legend(title), html.Div(members, style=GRID)],
                                       style={"marginBottom": "0.6em"}))
    parts.append(dcc.Checklist(id="full-model", value=[],
                               options=[{"label": " full model (every solver; up to seconds at queue depth 2-8)",
                                         "value": "full"}]))
    return html.Div(parts, style={"flex": "0 0 30em"})


def _kpi_rows(result) -> list:
    """The headline table's rows for a result (IOPS, latency in us, power in mW against budgets, nJ per I/O)."""
    from dash import html

    p, b = result.power, result.budgets

    def budget(key: str, value: float) -> str:
        check = b[key]
        if not check.is_set:
            return _fmt(value, 1, "mW")
        return f"{_fmt(value, 1, 'mW')} of {_fmt(check.limit, 0, 'mW')}: " + ("met" if check.met else "NOT MET")

    rows = [("IOPS", "kpi-iops", _fmt(result.iops)),
            ("mean latency", "kpi-latency", _fmt(result.latency_mean_us, 1, "us")),
            ("p99 latency", "kpi-p99", _fmt(result.latency_p99_us, 1, "us")),
            ("core-side power (cores + accelerators)", "kpi-core-mw", budget("core_power", p.core_side_mw)),
            ("DRAM power", "kpi-dram-mw", budget("dram_power", p.dram_mw)),
            ("energy per I/O", "kpi-energy", _fmt(result.energy_per_io_nj, 1, "nJ")),
            ("whole drive (+ NAND, SoC static, PCIe PHY)", "kpi-drive-mw", budget("drive_power", p.drive_mw)),
            ("whole drive's energy per I/O", "kpi-drive-energy", _fmt(p.drive_energy_per_io_nj(result.iops), 1,
                                                                      "nJ")),
            ("bottleneck (largest demand per server)", "kpi-bottleneck", result.bottleneck),
            ("what limits IOPS", "kpi-limited-by", result.limited_by),
            ("solver", "kpi-method", result.method)]
    return [html.Tr([html.Th(name, style={"textAlign": "left", "paddingRight": "1em"}), html.Td(value, id=i)])
            for name, i, value in rows]


def power_figure(result) -> dict:
    """Core-side and DRAM power (mW) as bars, each budget a dashed line across its bar (Plotly figure dict)."""
    p, b = result.power, result.budgets
    parts = (("core side", p.core_side_mw, b["core_power"]), ("DRAM", p.dram_mw, b["dram_power"]))
    shapes, notes = [], []
    for i, (_, _, check) in enumerate(parts):
        if check.is_set:
            shapes.append({"type": "line", "xref": "x", "yref": "y", "x0": i - 0.45, "x1": i + 0.45,
                           "y0": check.limit, "y1": check.limit, "layer": "above",
                           "line": {"color": BUDGET_COLOUR, "dash": "dash", "width": 3}})
            notes.append({"x": i, "y": check.limit, "text": f"budget {check.limit:g} mW", "showarrow": False,
                          "yshift": 10, "font": {"color": BUDGET_COLOUR}})
    colours = [STATION_COLOUR if check.met else OVER_COLOUR for _, _, check in parts]
    return {"data": [{"type": "bar", "x": [name for name, _, _ in parts], "y": [v for _, v, _ in parts],
                      "marker": {"color": colours}, "text": [f"{v:,.1f}" for _, v, _ in parts],
                      "textposition": "inside"}],
            "layout": {"title": {"text": "Power (mW) against the budgets"}, "shapes": shapes, "annotations": notes,
                       "yaxis": {"title": {"text": "mW"}, "rangemode": "tozero"}, "height": 300,
                       "margin": {"l": 50, "r": 20, "t": 40, "b": 30}}}


def utilisation_figure(result) -> dict:
    """Busy share of one server of each station (%), the bottleneck in red and named (Plotly figure dict)."""
    names = list(result.utilization)
    values = [100.0 * result.utilization[n] for n in names]
    colours = [BOTTLENECK_COLOUR if n == result.bottleneck else STATION_COLOUR for n in names]
    text = [f"{v:.0f} %" + (" - bottleneck" if n == result.bottleneck else "") for n, v in zip(names, values)]
    return {"data": [{"type": "bar", "orientation": "h", "y": names, "x": values, "marker": {"color": colours},
                      "text": text, "textposition": "auto"}],
            "layout": {"title": {"text": "Utilisation per server (%)"}, "height": 60 + 28 * len(names),
                       "xaxis": {"range": [0, 105], "title": {"text": "%"}},
                       "yaxis": {"autorange": "reversed"}, "margin": {"l": 140, "r": 20, "t": 40, "b": 40}}}


def des_text(status: JobStatus | None) -> str:
    """What the page says about a DES run: its progress, its error, or the DES's figures against the model's."""
    if status is None:
        return ""
    if status.error:
        return f"DES: {status.error}"
    if not status.done:
        return f"DES running: {status.completed:,} of {status.requests:,} requests"
    v = status.validation
    des, err = v.des, v.relative_error
    return (f"DES {v.verdict}: {des.iops.value:,.0f} IOPS (model {err['iops']:+.1%}), mean latency "
            f"{des.mean_latency_us.value:,.1f} us (model {err['latency_mean_us']:+.1%}), p99 "
            f"{_fmt(des.p99_us, 1, 'us')}; {status.requests:,} requests, seed {defaults.SEED}")


def make_app(config, des_requests: int = defaults.DES_REQUESTS):
    """The Dash app exploring ``config`` (a :class:`~ssdco.spec.Config`): its controls start at the
    configuration's values; each DES run completes ``des_requests`` requests."""
    dash = require_dash()
    from dash import Input, Output, State, ctx, dcc, html

    controls = controls_for(config)
    ids = [c.id for c in controls]
    jobs = DesJobs()
    app = dash.Dash(__name__, title=f"ssdco serve: {config.name}", serve_locally=True)
    right = html.Div([
        html.Div(id="error", style={"color": OVER_COLOUR, "whiteSpace": "pre-wrap"}),
        html.Table(id="kpis"),
        html.Div([dcc.Graph(id="power-figure", config={"displayModeBar": False}, style={"flex": "1"}),
                  dcc.Graph(id="utilisation-figure", config={"displayModeBar": False}, style={"flex": "1"})],
                 style={"display": "flex", "gap": "1em"}),
        html.Ul(id="caveats", style={"fontSize": "0.85em"}),
        html.Div([html.Button("Validate with the DES", id="des-button"),
                  html.Progress(id="des-progress", max=1, value=0, style={"width": "16em", "margin": "0 1em"}),
                  html.Span(id="des-result")], style={"margin": "0.6em 0"}),
        html.Div([html.Button("Download this design as TOML", id="download-button"), dcc.Download(id="download")]),
        dcc.Store(id="des-job"),
        dcc.Interval(id="des-poll", interval=POLL_MS, disabled=True),
    ], style={"flex": "1", "minWidth": "0"})
    app.layout = html.Div([
        html.H2(f"ssdco serve: {config.name}"),
        html.P(f"{config.source}; analytic model (fast path unless 'full model' is ticked), power in mW, "
               f"latency in us. Change a field and press Enter."),
        html.Div([_controls_panel(controls), right], style={"display": "flex", "gap": "2em"}),
    ], style={"fontFamily": "sans-serif", "margin": "1em"})

    def values_of(args) -> dict[str, Any]:
        return dict(zip(ids, args))

    @app.callback(Output("kpis", "children"), Output("power-figure", "figure"),
                  Output("utilisation-figure", "figure"), Output("caveats", "children"), Output("error", "children"),
                  [Input(i, "value") for i in ids], Input("full-model", "value"))
    def update(*args):
        try:
            raw = design_from_values(config, controls, values_of(args[:-1]))
        except ValueError as e:
            return [], {}, {}, [], str(e)
        a = answer(config, raw, effort="full" if args[-1] else "fast")
        if a.result is None:
            return [], {}, {}, [], a.error
        r = a.result
        return (_kpi_rows(r), power_figure(r), utilisation_figure(r), [html.Li(c) for c in r.caveats], "")

    @app.callback(Output("des-job", "data"), Output("des-poll", "disabled"), Output("des-progress", "value"),
                  Output("des-result", "children"), Input("des-button", "n_clicks"), Input("des-poll", "n_intervals"),
                  State("des-job", "data"), [State(i, "value") for i in ids], prevent_initial_call=True)
    def des(_clicks, _ticks, job, *args):
        if ctx.triggered_id == "des-button":
            try:
                design = design_config(config, design_from_values(config, controls, values_of(args)))
            except (ValueError, SsdcoError) as e:
                return None, True, 0, f"DES: {e}"
            job = jobs.start(design, requests=des_requests)
        status = jobs.status(job) if job is not None else None
        if status is None:
            return None, True, 0, ""
        return job, status.done, status.fraction, des_text(status)

    @app.callback(Output("download", "data"), Input("download-button", "n_clicks"),
                  [State(i, "value") for i in ids], prevent_initial_call=True)
    def download(_clicks, *args):
        try:
            raw = design_from_values(config, controls, values_of(args))
        except ValueError:  # the page already shows why
            return dash.no_update
        return {"content": design_toml(config, raw), "filename": f"{config.name}-design.toml"}

    return app


def start_server(config, host: str = "127.0.0.1", port: int = 8050, des_requests: int = defaults.DES_REQUESTS):
    """A threaded WSGI server of the page for ``config``, listening on ``host``:``port`` (0: any free port) but not
    yet serving (call its ``serve_forever``; ``shutdown`` from another thread stops it). Raises
    :class:`ServeError` where Dash is missing or the port cannot be bound."""
    import socket

    from werkzeug.serving import make_server

    app = make_app(config, des_requests=des_requests)
    try:  # bound here, not by werkzeug, which prints its own message and exits 1 on a taken port
        listener = socket.create_server((host, port))
    except OSError as e:
        raise ServeError(f"--port {port}: cannot listen on {host}:{port} ({e.strerror or e}); "
                         f"choose another port, or 0 for any free one") from None
    server = make_server(host, listener.getsockname()[1], app.server, threaded=True, fd=listener.fileno())
    listener.close()  # the server holds its own duplicate of the socket
    return server


def serve(config, host: str = "127.0.0.1", port: int = 8050, des_requests: int = defaults.DES_REQUESTS,
          ready=None) -> None:
    """Serve the page for ``config`` on ``host``:``port`` until interrupted; ``ready(url)`` is called once it
    listens. Raises :class:`ServeError` where Dash is missing or the port cannot be bound."""
    server = start_server(config, host=host, port=port, des_requests=des_requests)
    if ready is not None:
        ready(f"http://{host}:{server.port}/")
    try:
        server.serve_forever()
    finally:
        server.server_close()
