"""Figures (matplotlib, no pyplot state): the swimlane timeline and the findings heatmap.

The swimlane has one lane per node. A thin bar spans the time the node logged (coloured by its
status); grey ticks are a thinned sample of its ordinary events; coloured markers are its
findings (colour = category); the bar ends at the node's last line, and a dotted tail shows how
long it stayed silent while the job went on. The root cause is a red star with a dashed line,
and arrows lead from it to each victim's first error: the cascade.

Only a bounded sample is drawn: every node keeps at most ``max_events`` background events
(default: about 24,000 over all lanes) and ``max_findings`` findings per category, chosen
column-wise; the background is rasterized, so an SVG stays small whatever the run's size.
"""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

from analyzer.report.common import (
    STATUS_COLORS,
    bad_findings,
    category_color,
    fmt_duration,
    lane_nodes,
    to_utc,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from analyzer.run import Run

#: Lanes drawn when no ``nodes`` filter is given; the rest are summarised in the title.
MAX_LANES = 40
#: Cascade arrows drawn from the root cause (to the earliest victims).
MAX_ARROWS = 12

_RC = {
    "text.parse_math": False,  # node ids come from file names: never mathtext
    "svg.fonttype": "none",
    "svg.hashsalt": "tfdiag",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def _thin(codes, keep_first, cap: int):
    """A boolean mask keeping at most ~``cap`` evenly spaced rows per code (vectorized)."""
    import numpy as np
    import pandas as pd

    if len(codes) == 0:
        return np.zeros(0, dtype=bool)
    counts = np.bincount(codes)
    step = np.maximum(1, -(-counts // max(cap, 1)))  # ceil
    nth = pd.Series(codes).groupby(codes).cumcount().to_numpy()
    mask = (nth % step[codes]) == 0
    if keep_first is not None:
        mask |= keep_first
    return mask


def _lanes(run: Run, nodes) -> tuple[list[str], int]:
    all_lanes = lane_nodes(run)
    if nodes is not None:
        wanted = [str(n) for n in ([nodes] if isinstance(nodes, str) else nodes)]
        return [n for n in all_lanes if n in set(wanted)] or wanted, 0
    if len(all_lanes) <= MAX_LANES:
        return all_lanes, 0
    # Keep the nodes that matter: the root cause, then failed/victim/silent/missing, then the rest.
    rank = {"failed": 0, "victim": 1, "silent": 2, "missing": 3, "ok": 4}
    status = {n.node: n.status for n in run.diagnosis.nodes}
    rc = run.diagnosis.root_cause.node
    keep = sorted(all_lanes, key=lambda n: (n != rc, rank.get(status.get(n, "ok"), 5)))[:MAX_LANES]
    keep_set = set(keep)
    return [n for n in all_lanes if n in keep_set], len(all_lanes) - MAX_LANES


def failure_window(run: Run) -> tuple[Any, Any] | None:
    """(start, end) around the failure: the root cause and every victim's first error."""
    import pandas as pd

    rc = run.diagnosis.root_cause
    if rc.category == "none":
        return None
    t0 = to_utc(rc.time)
    times = [to_utc(n.first_error_time) for n in run.diagnosis.nodes]
    times += [to_utc(n.last_time) for n in run.diagnosis.nodes if n.status in ("failed", "silent")]
    times = [t for t in times if t is not None]
    if t0 is None:
        found = bad_findings(run, notable=True)
        if len(found) == 0:
            return None
        t0 = to_utc(found["ts"].min())
        if t0 is None:
            return None
    later = [t for t in times if t >= t0 - pd.Timedelta(minutes=5)]
    t1 = max([t0, *later])
    pad = max(pd.Timedelta(milliseconds=250), (t1 - t0) * 0.25)
    return t0 - pad * 2, t1 + pad


def plot_timeline(
    run: Run,
    nodes=None,
    categories=None,
    start=None,
    end=None,
    *,
    max_events: int | None = None,
    max_findings: int = 400,
    title: str | None = None,
    width: float = 11.0,
) -> Figure:
    """The swimlane figure of ``run`` (filters: node ids, category ids, a UTC time window)."""
    import matplotlib as mpl
    import matplotlib.dates as mdates
    import numpy as np
    import pandas as pd
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    with mpl.rc_context(_RC):
        lanes, hidden = _lanes(run, nodes)
        lane_of = {n: i for i, n in enumerate(lanes)}
        reports = {n.node: n for n in run.diagnosis.nodes}
        rc = run.diagnosis.root_cause
        cats = (
            None
            if categories is None
            else {str(c) for c in ([categories] if isinstance(categories, str) else categories)}
        )
        t_start, t_end = to_utc(start), to_utc(end)

        height = min(2.2 + 0.42 * max(len(lanes), 1), 22)
        fig = Figure(figsize=(width, height), layout="constrained")
        ax = fig.add_subplot()

        def window(ts: pd.Series) -> np.ndarray:
            ok = ts.notna().to_numpy(dtype=bool, copy=True)
            if t_start is not None:
                ok &= (ts >= t_start).fillna(False).to_numpy(dtype=bool)
            if t_end is not None:
                ok &= (ts <= t_end).fillna(False).to_numpy(dtype=bool)
            return ok

        def num(ts) -> np.ndarray:
            values = pd.to_datetime(pd.Series(ts), utc=True).dt.tz_convert(None).to_numpy()
            return mdates.date2num(values)

        tl = run.timeline
        found = bad_findings(run, notable=True)

        # Background: a thinned sample of each lane's events.
        if len(tl):
            codes = pd.Categorical(tl["node"], categories=lanes).codes
            sel = (codes >= 0) & window(tl["ts"])
            if len(found):
                sel[found.index.to_numpy()] = False  # drawn as findings below
            idx = np.flatnonzero(sel)
            per_lane = max_events or max(150, 24_000 // max(len(lanes), 1))
            keep = _thin(codes[idx], None, min(per_lane, 1500))
            idx = idx[keep]
            severe = (
                tl["level"]
                .iloc[idx]
                .isin(["WARNING", "ERROR", "FATAL", "CRITICAL"])
                .to_numpy(dtype=bool)
            )
            x, y = num(tl["ts"].iloc[idx]), codes[idx]
            # Rasterized: thousands of ticks stay one small image inside an SVG.
            ax.scatter(
                x[~severe],
                y[~severe],
                marker="|",
                s=40,
                color="#b0b0b0",
                lw=0.6,
                zorder=2,
                rasterized=True,
            )
            ax.scatter(
                x[severe],
                y[severe],
                marker="|",
                s=60,
                color="#707070",
                lw=0.8,
                zorder=2,
                rasterized=True,
            )

        # Lifetime bars, last lines, silence.
        first_ts = tl.groupby("node", observed=True)["ts"].min() if len(tl) else pd.Series()
        last_ts = tl.groupby("node", observed=True)["ts"].max() if len(tl) else pd.Series()
        job_end = real_end = to_utc(last_ts.max()) if len(last_ts) else None
        if t_end is not None and job_end is not None:
            job_end = min(job_end, t_end)
        for name, i in lane_of.items():
            rep = reports.get(name)
            status = rep.status if rep else "ok"
            color = STATUS_COLORS.get(status, "#555")
            a = to_utc(rep.first_time if rep and rep.first_time is not None else first_ts.get(name))
            b = to_utc(rep.last_time if rep and rep.last_time is not None else last_ts.get(name))
            if a is None or b is None:
                ax.text(
                    0.005,
                    i,
                    "  no log",
                    transform=ax.get_yaxis_transform(),
                    va="center",
                    ha="left",
                    color=STATUS_COLORS["missing"],
                    style="italic",
                )
                continue
            a = max(a, t_start) if t_start is not None else a
            b_shown = min(b, t_end) if t_end is not None else b
            if b_shown >= a:
                ax.plot(
                    num([a, b_shown]),
                    [i, i],
                    color=color,
                    lw=5,
                    alpha=0.28,
                    solid_capstyle="butt",
                    zorder=1,
                )
            if (t_start is None or b >= t_start) and (t_end is None or b <= t_end):
                ax.plot(num([b]), [i], marker="|", ms=16, mew=2.5, color=color, zorder=4)
            if job_end is not None and b < job_end and (job_end - b).total_seconds() > 0:
                tail_a = max(b, t_start) if t_start is not None else b
                if tail_a < job_end:
                    ax.plot(
                        num([tail_a, job_end]),
                        [i, i],
                        color=color,
                        lw=1.2,
                        ls=(0, (1, 2)),
                        alpha=0.8,
                        zorder=1,
                    )
                    if status in ("failed", "silent") or rep is None:
                        ax.annotate(
                            f"silent {fmt_duration((real_end - b).total_seconds())}",
                            (num([tail_a])[0], i),
                            xytext=(6, 5),
                            textcoords="offset points",
                            fontsize=7.5,
                            color=color,
                        )

        # Findings, coloured by category.
        shown_cats: list[str] = []
        if len(found):
            fcodes = pd.Categorical(found["node"], categories=lanes).codes
            fsel = (fcodes >= 0) & window(found["ts"])
            if cats is not None:
                fsel &= found["category"].isin(cats).to_numpy()
            fidx = np.flatnonzero(fsel)
            if len(fidx):
                sub = found.iloc[fidx]
                key = pd.factorize(sub["node"].astype(str) + "\0" + sub["category"].astype(str))[0]
                keep = _thin(key, None, max_findings)
                sub, fc = sub[keep], fcodes[fidx][keep]
                x = num(sub["ts"])
                present = list(pd.unique(sub["category"]))
                many = len(sub) > 3000
                spread = 0.36 / max(len(present) - 1, 1)
                for k, cat in enumerate(present):
                    dy = (k - (len(present) - 1) / 2) * spread if len(present) > 1 else 0.0
                    m = (sub["category"] == cat).fillna(False).to_numpy(dtype=bool)
                    big = (
                        sub["severity"].isin(["error", "fatal", "critical"]).to_numpy(dtype=bool)[m]
                    )
                    col = category_color(cat)
                    ax.scatter(
                        x[m][big],
                        fc[m][big] + dy,
                        s=38,
                        rasterized=many,
                        color=col,
                        edgecolor="white",
                        lw=0.5,
                        zorder=5,
                    )
                    ax.scatter(
                        x[m][~big],
                        fc[m][~big] + dy,
                        s=22,
                        rasterized=many,
                        marker="D",
                        color=col,
                        edgecolor="white",
                        lw=0.4,
                        zorder=5,
                    )
                    shown_cats.append(str(cat))

        # Root cause and cascade.
        t_rc = to_utc(rc.time)
        in_view = (
            t_rc is not None
            and (t_start is None or t_rc >= t_start)
            and (t_end is None or t_rc <= t_end)
        )
        if in_view:
            x_rc = num([t_rc])[0]
            ax.axvline(x_rc, color=STATUS_COLORS["failed"], ls="--", lw=1, zorder=3)
            if rc.node in lane_of:
                y_rc = lane_of[rc.node]
                ax.scatter(
                    [x_rc],
                    [y_rc],
                    marker="*",
                    s=260,
                    color=STATUS_COLORS["failed"],
                    edgecolor="black",
                    lw=0.6,
                    zorder=7,
                )
                ax.annotate(
                    f"root cause: {rc.category}",
                    (x_rc, y_rc),
                    xytext=(-8, 9),
                    textcoords="offset points",
                    ha="right",
                    fontsize=8.5,
                    weight="bold",
                    color=STATUS_COLORS["failed"],
                    zorder=8,
                    bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85},
                )
                # Arrows to the victims that erred after it (small clock skew allowed), the
                # earliest MAX_ARROWS of them: enough to read the cascade, not a thicket.
                victims = []
                for name, i in lane_of.items():
                    rep = reports.get(name)
                    t_v = to_utc(rep.first_error_time) if rep and rep.status == "victim" else None
                    if t_v is None or name == rc.node:
                        continue
                    if (t_end is not None and t_v > t_end) or (t_v - t_rc).total_seconds() < -1:
                        continue
                    victims.append((t_v, name, i))
                for t_v, _name, i in sorted(victims)[:MAX_ARROWS]:
                    x_v = num([t_v])[0]
                    ax.annotate(
                        "",
                        (x_v, i),
                        xytext=(x_rc, y_rc),
                        arrowprops={
                            "arrowstyle": "->",
                            "color": STATUS_COLORS["victim"],
                            "lw": 1,
                            "alpha": 0.75,
                            "shrinkA": 8,
                            "shrinkB": 5,
                        },
                        zorder=6,
                    )
                    lag = (t_v - t_rc).total_seconds()
                    ax.annotate(
                        f"+{fmt_duration(lag)}" if lag >= 0 else fmt_duration(lag),
                        (x_v, i),
                        xytext=(6, -11),
                        textcoords="offset points",
                        fontsize=7.5,
                        color=STATUS_COLORS["victim"],
                    )

        # Axes.
        ax.set_ylim(len(lanes) - 0.5, -0.7)
        ax.set_yticks(range(len(lanes)))
        labels = []
        for name in lanes:
            rep = reports.get(name)
            labels.append(f"{name}  ({rep.status})" if rep else name)
        ax.set_yticklabels(labels)
        for tick, name in zip(ax.get_yticklabels(), lanes, strict=True):
            rep = reports.get(name)
            tick.set_color(STATUS_COLORS.get(rep.status, "#333") if rep else "#333")
            if name == rc.node:
                tick.set_fontweight("bold")
        ax.grid(axis="x", color="#eeeeee", lw=0.8)
        ax.set_axisbelow(True)
        if t_start is not None or t_end is not None:
            lo, hi = ax.get_xlim()
            ax.set_xlim(
                num([t_start])[0] if t_start is not None else lo,
                num([t_end])[0] if t_end is not None else hi,
            )
        loc = mdates.AutoDateLocator(minticks=4, maxticks=10)
        ax.xaxis.set_major_locator(loc)
        fmt = mdates.ConciseDateFormatter(loc, tz="UTC")
        fmt.formats[5] = "%H:%M:%S.%f"  # seconds: "04:58:45", never a bare "45"
        fmt.zero_formats[5] = "%H:%M:%S"
        ax.xaxis.set_major_formatter(fmt)
        ax.set_xlabel("time (UTC)")
        if title is None:
            title = "Timeline: one lane per node" + (
                f" ({hidden} quieter nodes not shown)" if hidden else ""
            )
        ax.set_title(title, loc="left")

        handles = [
            Line2D([], [], color=category_color(c), marker="o", ls="", ms=6, label=c)
            for c in dict.fromkeys(shown_cats)
        ]
        handles += [
            Line2D([], [], color="#9a9a9a", marker="|", ls="", ms=8, label="other events (sample)"),
            Line2D([], [], color="#555", marker="|", ls="", ms=12, mew=2.5, label="last line"),
            Line2D([], [], color="#555", ls=(0, (1, 2)), label="silent"),
        ]
        if in_view:
            handles.insert(
                0,
                Line2D(
                    [],
                    [],
                    color=STATUS_COLORS["failed"],
                    marker="*",
                    ls="",
                    ms=11,
                    label="root cause",
                ),
            )
        fig.legend(
            handles=handles,
            loc="outside lower center",
            ncols=min(len(handles), 5),
            frameon=False,
            fontsize=8,
        )
    return fig


def plot_findings(run: Run, *, width: float = 8.0) -> Figure:
    """A node × category heatmap of the non-benign findings."""
    import matplotlib as mpl
    import numpy as np
    from matplotlib.figure import Figure

    from analyzer.report.common import findings_matrix

    nodes, cats, cells = findings_matrix(run)
    with mpl.rc_context(_RC):
        fig = Figure(
            figsize=(width, min(1.6 + 0.35 * max(len(nodes), 1), 20)), layout="constrained"
        )
        ax = fig.add_subplot()
        if not nodes:
            ax.text(0.5, 0.5, "no findings", ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
            return fig
        data = np.array([[cells.get((n, c), 0) for c in cats] for n in nodes], dtype=float)
        ax.imshow(np.log1p(data), cmap="Oranges", aspect="auto")
        for i in range(len(nodes)):
            for j in range(len(cats)):
                if data[i, j]:
                    ax.text(j, i, f"{int(data[i, j])}", ha="center", va="center", fontsize=8)
        ax.set_xticks(range(len(cats)), cats, rotation=30, ha="right")
        ax.set_yticks(range(len(nodes)), nodes)
        ax.set_title("Findings by node and category", loc="left")
    return fig


def figure_data_uri(fig: Figure, fmt: str = "svg") -> str:
    """``data:image/svg+xml;base64,...`` (or png) of ``fig``, for an ``<img src>``."""
    import matplotlib as mpl

    buf = io.BytesIO()
    with mpl.rc_context(_RC):
        if fmt == "svg":
            fig.savefig(buf, format="svg", dpi=150, metadata={"Date": None})
            mime = "image/svg+xml"
        else:
            fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
            mime = "image/png"
    return f"data:{mime};base64,{base64.b64encode(buf.getvalue()).decode('ascii')}"


#: Nodes named in the progress figure's legend; beyond it, peers are drawn grey and unnamed.
PROGRESS_LEGEND = 12
_GREY = {"color": "#9aa4b1", "lw": 0.8, "ms": 0, "zorder": 2, "marker": "."}


def _progress_groups(progress: pd.DataFrame, many: bool, highlight: str | None) -> Any:
    """``progress.groupby("node", sort=True)``; with ``many`` nodes (the others drawn grey by
    :func:`_plot_grey_peers`) only the group of ``highlight``, if it reported."""
    if not many:
        return progress.groupby("node", sort=True)
    if highlight is None:
        return []
    mine = progress[(progress["node"] == highlight).to_numpy(dtype=bool)]
    return [(highlight, mine)] if len(mine) else []


def _plot_grey_peers(
    progress: pd.DataFrame, highlight: str | None, ax_step: Any, ax_rate: Any, ax_own: Any
) -> None:
    """Every node but ``highlight`` drawn grey: per panel one line whose pieces (one per node,
    separated by a gap) are what the node's own line would be."""
    import numpy as np
    import pandas as pd

    keep = (progress["node"] != highlight).to_numpy(dtype=bool) if highlight is not None else None
    rows = progress if keep is None else progress[keep]
    codes, _ = pd.factorize(rows["node"], sort=True)
    order = np.argsort(codes, kind="stable")
    order = order[codes[order] >= 0]
    codes = codes[order]
    timed = rows["timed"].to_numpy(dtype=bool)[order]
    step = rows["step"].to_numpy(dtype=float, na_value=np.nan)[order]
    rate = rows["rate"].to_numpy(dtype=float, na_value=np.nan)[order]
    own = rows["step_time_s"].to_numpy(dtype=float, na_value=np.nan)[order]
    ts = rows["ts"].dt.tz_convert("UTC").dt.tz_localize(None).to_numpy(dtype="datetime64[ns]")
    ts = ts[order]

    def line(ax: Any, x: np.ndarray, y: np.ndarray, which: np.ndarray, gap: Any) -> None:
        if ax is None or not which.any():
            return
        # a gap (NaN) after each node's last point breaks the line there
        c = codes[which]
        last = np.r_[c[1:] != c[:-1], True]
        xs, ys = x[which], y[which]
        at = np.flatnonzero(last) + 1
        ax.plot(np.insert(xs, at, gap), np.insert(ys, at, np.nan), **_GREY)

    line(ax_step, ts, step, timed & ~np.isnan(step), np.datetime64("NaT"))
    line(ax_rate, ts, rate, timed & ~np.isnan(rate), np.datetime64("NaT"))
    line(ax_own, step, own, ~np.isnan(step) & ~np.isnan(own), np.nan)


def _untimed(progress: pd.DataFrame) -> list[str]:
    """The nodes none of whose reports has a time of its own, in group-by order."""
    import numpy as np
    import pandas as pd

    codes, uniques = pd.factorize(progress["node"], sort=True)
    timed = progress["timed"].to_numpy(dtype=bool) & (codes >= 0)
    has = np.bincount(codes[timed], minlength=len(uniques)) > 0
    return [str(u) for u, h in zip(uniques.tolist(), has.tolist(), strict=True) if not h]


def plot_progress(
    progress: pd.DataFrame, *, title: str | None = None, highlight: str | None = None
) -> Figure:
    """Progress per node (see :mod:`analyzer.progress`): the step each node reported and its
    steps per second over time, and — when nodes report their own step times — the step time
    by step number.

    Only reports with a time of their own are drawn against time (a Keras bar or a zone-less
    TF1 line inherits the time of the line before it); the step-time panel needs no time, so
    such nodes show there. ``highlight`` (the root cause's node) is drawn thick and red. With
    more than ``PROGRESS_LEGEND`` nodes the others are thin grey lines without names.
    """
    import matplotlib as mpl
    import matplotlib.dates as mdates
    import numpy as np
    from matplotlib.figure import Figure

    with mpl.rc_context(_RC):
        has_time = progress is not None and not progress.empty and progress["timed"].any()
        own = (
            progress is not None
            and not progress.empty
            and (progress["step"].notna() & progress["step_time_s"].notna()).any()
        )
        panels = (2 if has_time else 0) + (1 if own else 0)
        fig = Figure(figsize=(9, 2.3 * max(panels, 1) + 0.3), layout="constrained")
        if not panels:
            ax = fig.subplots(1, 1)
            ax.text(0.5, 0.5, "no progress lines found", ha="center", va="center")
            ax.set_axis_off()
            return fig
        axes = list(np.atleast_1d(fig.subplots(panels, 1)))
        ax_step, ax_rate = (axes[0], axes[1]) if has_time else (None, None)
        ax_own = axes[-1] if own else None
        if ax_rate is not None:
            ax_rate.sharex(ax_step)
        nodes = sorted(progress["node"].unique(), key=str)
        many = len(nodes) > PROGRESS_LEGEND
        untimed = []
        if many:  # the unnamed grey peers: one line per panel, broken between nodes
            _plot_grey_peers(progress, highlight, ax_step, ax_rate, ax_own)
            untimed = _untimed(progress)
        for node, rows in _progress_groups(progress, many, highlight):
            bold = highlight is not None and node == highlight
            kw: dict[str, Any] = {"lw": 1.2, "zorder": 2, "marker": ".", "ms": 3}
            if bold:
                kw.update(lw=2.4, zorder=3, color="#d62728", label=f"{node} (root cause)")
            elif many:
                kw.update(color="#9aa4b1", lw=0.8, ms=0)
            else:
                kw["label"] = str(node)
            timed = rows[rows["timed"].to_numpy(dtype=bool)]
            if timed.empty:
                if not many:
                    untimed.append(str(node))
            elif ax_step is not None:
                times = timed["ts"].dt.tz_convert("UTC").dt.tz_localize(None)
                stepped = timed["step"].notna().to_numpy()
                if stepped.any():
                    ax_step.plot(times[stepped], timed["step"][stepped], **kw)
                rated = timed["rate"].notna().to_numpy()
                if rated.any():
                    ax_rate.plot(times[rated], timed["rate"][rated], **kw)
            if ax_own is not None:
                mine = rows[rows["step"].notna() & rows["step_time_s"].notna()]
                if not mine.empty:
                    ax_own.plot(mine["step"], mine["step_time_s"], **kw)
        if ax_step is not None:
            loc = mdates.AutoDateLocator(minticks=4, maxticks=10)
            ax_rate.xaxis.set_major_locator(loc)
            ax_rate.xaxis.set_major_formatter(mdates.ConciseDateFormatter(loc, tz="UTC"))
            ax_step.set_ylabel("step")
            ax_rate.set_ylabel("steps / s")
            ax_rate.set_ylim(bottom=0)
            ax_rate.set_xlabel("time (UTC)")
        if ax_own is not None:
            ax_own.set_ylabel("its step time (s)")
            ax_own.set_xlabel("step")
            ax_own.set_ylim(bottom=0)
        first = axes[0]
        if ax_step is not None:
            ax_step.tick_params(labelbottom=False)
        legend: dict[str, Any] = {}
        for ax in axes:
            for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
                legend.setdefault(label, h)
        if legend:
            first.legend(
                list(legend.values()),
                list(legend),
                loc="upper left",
                fontsize=7,
                ncols=4,
                frameon=False,
            )
        head = title or f"Training progress per node ({len(nodes)} reporting)"
        if untimed and has_time:
            head += f"; {', '.join(untimed[:4])}{' …' if len(untimed) > 4 else ''}: no time of their own, by step only"
        first.set_title(head, loc="left")
    return fig
