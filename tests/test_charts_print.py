"""Print-ready charts: PNG at 200 dpi (or any dpi asked), PDF beside PNG and SVG, a
diverging tournament heatmap centred on the fair share, a forest plot with one panel per
figure, survival curves that reach the longest game and say when they coincide, and code
in HTML tables that never breaks."""

import base64
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from chart_defaults import print_defaults
from cli_helpers import cardsim_here as run_cli
from matplotlib.colors import TwoSlopeNorm, rgb_to_hsv
from PIL import Image
from test_analysis_compare import DEFAULT
from test_analysis_compare import make_run as make_compare_run
from test_analysis_report import make_run

from analysis.comparisons import charts
from analysis.comparisons.report import write_comparison
from analysis.errors import ReportError
from analysis.rendering import plots
from analysis.rendering.document import Chart, Table, to_html, to_markdown
from analysis.rendering.output import DEFAULT_DPI, render, write_document
from analysis.reports import write_report
from simulate.runs.folder.distribution import Distribution

REPO = Path(__file__).resolve().parents[1]
CHARTS = ("convergence", "length_histogram", "survival", "win_share")
STRATEGIES = ["random", "first", "greedy"]


def png_dpi(data: bytes) -> tuple[int, int]:
    """The resolution a PNG records (its pHYs chunk, in whole pixels per metre), as PIL
    reads it back, to the nearest dot per inch."""
    return tuple(round(v) for v in Image.open(io.BytesIO(data)).info["dpi"])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """A synthetic Beggar-My-Neighbour run and its report, written with the defaults."""
    folder = make_run(tmp_path_factory.mktemp("print") / "run")
    with print_defaults():
        write_report(folder, top=3)
    return folder


# --- PNG resolution and formats -----------------------------------------------------------


def test_png_charts_are_200_dpi_by_default(reported):
    assert DEFAULT_DPI == 200
    for chart in CHARTS:
        data = (reported / "charts" / f"{chart}.png").read_bytes()
        assert png_dpi(data) == (200, 200)
        # 200 dots per inch of the figure's width, not merely a label in the file.
        width_px = Image.open(io.BytesIO(data)).size[0]
        assert width_px >= 6 * 200


def test_pdf_is_written_beside_png_and_svg(reported):
    names = sorted(p.name for p in (reported / "charts").iterdir())
    assert names == [f"{c}.{ext}" for c in CHARTS for ext in ("pdf", "png", "svg")]
    for chart in CHARTS:
        assert (reported / "charts" / f"{chart}.pdf").read_bytes().startswith(b"%PDF")
        assert (reported / "charts" / f"{chart}.svg").read_bytes().lstrip().startswith(b"<?xml")
    markdown = (reported / "report.md").read_text()
    assert "[PDF version](charts/survival.pdf)" in markdown
    assert "![" in markdown and "](charts/survival.png)" in markdown


@pytest.mark.end_to_end
def test_html_embeds_the_png_at_the_chosen_dpi(tmp_path):
    folder = make_run(tmp_path / "run")
    write_report(folder, dpi=120, formats="pdf")
    page = (folder / "report.html").read_text()
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == len(CHARTS)
    assert png_dpi(base64.b64decode(images[0])) == (120, 120)
    # Only the PDFs were asked for; the Markdown links them, as it cannot show them.
    assert sorted(p.suffix for p in (folder / "charts").iterdir()) == [".pdf"] * len(CHARTS)
    markdown = (folder / "report.md").read_text()
    assert "[PDF version](charts/survival.pdf)" in markdown and ".png)" not in markdown


@pytest.mark.end_to_end
def test_dpi_and_formats_in_python(tmp_path):
    folder = make_run(tmp_path / "run")
    write_report(folder, dpi=300, formats=["svg", "png"])
    assert png_dpi((folder / "charts" / "win_share.png").read_bytes()) == (300, 300)
    assert {p.suffix for p in (folder / "charts").iterdir()} == {".png", ".svg"}


def test_markdown_shows_the_svg_when_there_is_no_png():
    chart = [Chart("c", "a chart")]
    assert to_markdown(chart, ("svg",)).strip() == "![a chart](charts/c.svg)"
    assert to_markdown(chart, ("svg", "pdf")).strip() == (
        "![a chart](charts/c.svg)\n\n[PDF version](charts/c.pdf)"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"formats": "png,jpg"}, r"formats: 'jpg' is not a chart format; allowed: png, svg, pdf"),
        ({"formats": ""}, r"formats: an empty name is not a chart format; allowed: png, svg, pdf"),
        ({"dpi": 0}, r"dpi: 0 is not allowed; give a whole number from 50 to 1200"),
        ({"dpi": 72.5}, r"dpi: 72.5 is not allowed"),
    ],
)
def test_bad_options_are_refused_before_anything_is_written(tmp_path, options, message):
    folder = make_run(tmp_path / "run")
    before = snapshot(folder)
    with pytest.raises(ReportError, match=re.escape(message)):
        write_report(folder, **options)
    assert snapshot(folder) == before
    with pytest.raises(ReportError, match=re.escape(message)):
        write_document(tmp_path / "doc", [], {}, "t", **options)
    assert not (tmp_path / "doc").exists()


def test_pdf_and_svg_are_the_same_each_time():
    fig = plots.survival_chart(*Distribution.of(np.arange(1, 50)).survival(), "a · b")
    assert render(fig, "pdf") == render(fig, "pdf")
    assert render(fig, "svg") == render(fig, "svg")


# --- the tournament heatmap ----------------------------------------------------------------


def matrix_of(values):
    def frame(v):
        return pd.DataFrame(v, index=STRATEGIES, columns=STRATEGIES)

    return frame(values), frame(values - 0.02), frame(values + 0.02)


@pytest.mark.parametrize(
    ("players", "values"),
    [
        (2, [[np.nan, 0.62, 0.55], [0.38, np.nan, 0.47], [0.45, 0.53, np.nan]]),
        (4, [[np.nan, 0.31, 0.28], [0.18, np.nan, 0.22], [0.30, 0.26, np.nan]]),
    ],
)
def test_heatmap_diverges_from_the_fair_share(players, values):
    fair = 1 / players
    matrix, lo, hi = matrix_of(np.array(values))
    fig = plots.tournament_heatmap(matrix, lo, hi, f"t · {players} players", players)
    image = fig.axes[0].images[0]
    norm = image.norm
    assert isinstance(norm, TwoSlopeNorm) and norm.vcenter == pytest.approx(fair)
    assert norm(fair) == pytest.approx(0.5)
    # Diverging: the two ends are of different hues, both deep; the middle is light.
    cmap = image.get_cmap()
    low, mid, high = (np.array(cmap(v)[:3]) for v in (0.0, 0.5, 1.0))
    hue = lambda rgb: rgb_to_hsv(rgb)[0]  # noqa: E731
    assert abs(hue(low) - hue(high)) > 0.3
    assert mid.mean() > 0.9 and low.mean() < 0.5 and high.mean() < 0.5
    # The same distance from the fair share is as deep on both sides (where [0, 1] allows).
    reach = np.nanmax(np.abs(np.array(values) - fair))
    assert norm(fair + reach) - 0.5 == pytest.approx(0.5 - norm(max(0.0, fair - reach)), abs=1e-9)
    # The fair share is marked on the colour bar, and labelled there.
    bar = fig.axes[1]
    assert any(np.allclose(line.get_ydata(), fair) for line in bar.lines)
    labels = [t.get_text() for t in bar.get_yticklabels()]
    assert f"fair share {100 * fair:.1f}% (1/{players})" in labels
    # In grayscale the cells below the fair share are told apart by their dots.
    dotted = [p for p in fig.axes[0].patches if p.get_hatch() == plots.BELOW_FAIR_HATCH]
    assert len(dotted) == int(np.sum(np.array(values) < fair))


# --- the forest plot ----------------------------------------------------------------------


def forest_rows(with_matches: bool = True) -> pd.DataFrame:
    rows = {
        "variant": ["base", "double", "any_draw"],
        "base": ["base"] * 3,
        "is_base": [True, False, False],
        "first_diff": [np.nan, 0.012, -0.004],
        "first_diff_lo": [np.nan, 0.004, -0.012],
        "first_diff_hi": [np.nan, 0.020, 0.004],
        "first_significant": [None, True, False],
        "length_diff": [np.nan, -0.3, 41.2],
        "length_diff_lo": [np.nan, -0.4, 39.9],
        "length_diff_hi": [np.nan, -0.2, 42.5],
        "length_significant": [None, True, True],
    }
    if with_matches:
        rows |= {
            "match_diff": [np.nan, 0.05, 0.01],
            "match_diff_lo": [np.nan, 0.01, -0.03],
            "match_diff_hi": [np.nan, 0.09, 0.05],
            "match_significant": [None, True, False],
        }
    return pd.DataFrame(rows)


def test_forest_plot_gives_each_figure_its_own_row_and_scale():
    fig = charts.forest_chart(forest_rows(), "t", "turns")
    share, length, match = fig.axes
    # One above the other, every panel full width.
    boxes = [ax.get_position() for ax in (share, length, match)]
    assert boxes[0].y0 > boxes[1].y0 > boxes[2].y0
    assert boxes[0].x0 == pytest.approx(boxes[1].x0, abs=0.05)
    # Each on its own x scale, in its own unit, showing its own intervals and zero.
    for a in (share, length, match):
        for b in (share, length, match):
            if a is not b:
                assert not a.get_shared_x_axes().joined(a, b)
    assert "percentage points" in share.get_xlabel() and "turns" in length.get_xlabel()
    assert "match" in match.get_xlabel()
    assert length.get_xlim()[1] > 42.5 and share.get_xlim()[1] < 3
    assert share.get_xlim()[0] < -1.2 and match.get_xlim()[1] > 9
    for ax in (share, length, match):
        lo, hi = ax.get_xlim()
        assert lo < 0 < hi
        ticks = ax.get_yticks()
        labels = dict(zip(ticks, (t.get_text() for t in ax.get_yticklabels()), strict=True))
        assert labels == {1: "double\nvs base", 0: "any_draw\nvs base"}


def test_forest_plot_without_matches_has_two_rows():
    fig = charts.forest_chart(forest_rows(with_matches=False), "t", "cards")
    assert len(fig.axes) == 2
    assert fig.axes[0].get_position().y0 > fig.axes[1].get_position().y0


# --- survival curves ----------------------------------------------------------------------


def test_survival_curve_reaches_the_longest_game():
    lengths = np.array([5, 5, 6, 9, 9, 12, 40, 41, 250])
    dist = Distribution.of(lengths)
    fig = plots.survival_chart(*dist.survival(), "t")
    line = fig.axes[0].lines[0]
    assert line.get_xdata()[-1] == lengths.max()
    assert line.get_ydata()[-1] == pytest.approx(1 / len(lengths))  # P(L > 41)
    assert fig.axes[0].get_xlim()[1] >= lengths.max()
    several = charts.survival_curves([("a", dist), ("b", Distribution.of(lengths[:-1]))], "t", "x")
    ends = [line.get_xdata()[-1] for line in several.axes[0].lines]
    assert ends == [250, 41]


def test_coinciding_survival_curves_are_drawn_once_with_a_note():
    rng = np.random.default_rng(3)
    a = rng.geometric(0.05, 20_000)
    nearly = a.copy()
    nearly[:3] += 1  # three deals a turn longer: the same curve to the eye
    other = rng.geometric(0.05, 20_000)  # the same law, another sample: tails differ
    lengths = [
        ("adding", Distribution.of(a)),
        ("doubling", Distribution.of(nearly)),
        ("other", Distribution.of(other)),
    ]
    assert charts.coinciding_curves(lengths) == [["adding", "doubling"]]
    fig = charts.survival_curves(lengths, "t", "turns")
    ax = fig.axes[0]
    assert len(ax.lines) == 2
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["adding = doubling", "other"]
    notes = [t.get_text() for t in ax.texts]
    assert notes == ["Curves adding and doubling coincide: drawn as one line."]
    assert charts.coinciding_curves(lengths[::2]) == []


def test_three_coinciding_curves_are_named_together():
    same = Distribution.of(np.arange(1, 100))
    groups = charts.coinciding_curves([("a", same), ("b", same), ("c", same)])
    assert groups == [["a", "b", "c"]]
    assert charts.coincide_text(groups[0]) == "curves a, b and c coincide"


@pytest.mark.end_to_end
def test_comparison_report_says_which_curves_coincide(tmp_path):
    # Same lengths in both runs (the rule changed nothing), other lengths in the third.
    runs = [
        make_compare_run(tmp_path / "adding", 495),
        make_compare_run(tmp_path / "doubling", 495, rules={**DEFAULT, "time_limit": 10_000}),
        make_compare_run(tmp_path / "longer", 495, shift=40),
    ]
    html, md = write_comparison(runs, tmp_path / "out", formats="png")
    markdown = md.read_text()
    assert "curves adding and doubling coincide" in markdown
    assert "curves adding and doubling coincide" in html.read_text()
    assert "longer coincide" not in markdown


# --- code in HTML tables ------------------------------------------------------------------


def css_rules(page: str) -> dict[str, str]:
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    return {
        selector.strip(): body
        for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", style)
        for selector in selectors.split(",")
    }


def test_code_in_html_tables_never_breaks(reported):
    page = to_html(
        [
            Table(
                ["end", "meaning", "share"],
                [["stock_out", "the stock ran out", "72.8%"], ["`time_limit`", "x", "1%"]],
                "llr",
                frozenset({0}),
            ),
            Table(["strategy", "rating"], [["`hold-wilds`", "+3.1"]], "lr"),
        ],
        "t",
        {},
    )
    assert '<td class="code"><code>stock_out</code></td>' in page
    # A backticked name in an ordinary column is code too, in both files alike.
    assert "<td><code>hold-wilds</code></td>" in page
    rules = css_rules(page)
    for selector in ("td.code", "td code"):
        assert "white-space: nowrap" in rules[selector]
    assert "break-all" not in page
    # And in a real report: the end reasons' column.
    report = (reported / "report.html").read_text()
    assert '<td class="code"><code>out</code></td>' in report
    assert "white-space: nowrap" in css_rules(report)["td.code"]


# --- the command line ---------------------------------------------------------------------


@pytest.mark.end_to_end
def test_report_dpi_and_formats_flags(tmp_path):
    folder = make_run(tmp_path / "run")
    result = run_cli("report", folder, "--dpi", "150", "--formats", "png,pdf")
    assert result.returncode == 0, result.stderr
    assert {p.suffix for p in (folder / "charts").iterdir()} == {".png", ".pdf"}
    assert png_dpi((folder / "charts" / "survival.png").read_bytes()) == (150, 150)


@pytest.mark.end_to_end
@pytest.mark.parametrize(
    ("flags", "shown"),
    [
        (
            ["--formats", "png,tiff"],
            "--formats: 'tiff' is not a chart format; allowed: png, svg, pdf",
        ),
        (["--dpi", "huge"], "--dpi: 'huge' is not allowed; give a whole number from 50 to 1200"),
        (["--dpi", "20"], "--dpi: '20' is not allowed; give a whole number from 50 to 1200"),
    ],
)
def test_bad_chart_flags_are_one_error_line_and_write_nothing(tmp_path, flags, shown):
    folder = make_run(tmp_path / "run")
    runs = [make_compare_run(tmp_path / name, 495) for name in ("a", "b")]
    study = tmp_path / "study.toml"
    study.write_text((REPO / "studies" / "pis-yedili-sevens.toml").read_text())
    before = snapshot(tmp_path)
    commands = [
        ["simulate", "bmn", "--games", "10", "--out", tmp_path / "s"],
        ["report", folder],
        ["compare", *runs, "--out", tmp_path / "cmp"],
        ["sweep", study, "--out", tmp_path / "sweep", "--games", "10"],
        ["tournament", "crazy-eights", "--strategies", "random,first", "--out", tmp_path / "t"],
    ]
    for command in commands:
        result = run_cli(*command, *flags)
        assert result.returncode == 2, (command, result.stderr)
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {shown}"), (command, lines)
        assert snapshot(tmp_path) == before, command


@pytest.mark.end_to_end
def test_sweep_compare_and_tournament_pass_the_flags_on(tmp_path):
    study = tmp_path / "study.toml"
    study.write_text((REPO / "studies" / "pis-yedili-sevens.toml").read_text())
    result = run_cli(
        *("sweep", study, "--out", tmp_path / "sweep", "--games", "40", "--threads", "1"),
        *("--dpi", "90", "--formats", "svg,png"),
    )
    assert result.returncode == 0, result.stderr
    charts_dir = tmp_path / "sweep" / "charts"
    assert {p.suffix for p in charts_dir.iterdir()} == {".svg", ".png"}
    assert png_dpi((charts_dir / "survival_4p.png").read_bytes()) == (90, 90)

    cells = [tmp_path / "sweep" / "adding-4p", tmp_path / "sweep" / "doubling-4p"]
    result = run_cli("compare", *cells, "--out", tmp_path / "cmp", "--formats", "pdf")
    assert result.returncode == 0, result.stderr
    assert {p.suffix for p in (tmp_path / "cmp" / "charts").iterdir()} == {".pdf"}

    result = run_cli(
        *("tournament", "crazy-eights", "--strategies", "random,first", "--players", "2"),
        *("--games", "40", "--seed", "1", "--threads", "1", "--out", tmp_path / "t"),
        *("--dpi", "75", "--formats", "png"),
    )
    assert result.returncode == 0, result.stderr
    heatmap = tmp_path / "t" / "charts" / "tournament.png"
    assert [p.name for p in (tmp_path / "t" / "charts").iterdir()] == ["tournament.png"]
    assert png_dpi(heatmap.read_bytes()) == (75, 75)
