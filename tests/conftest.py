"""Shared helpers for the engine and CLI tests."""

from __future__ import annotations

import secrets
import shutil
import sys
from pathlib import Path

import hypothesis_profiles  # noqa: F401 (registers and loads the ci profile)
import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--reference-seed",
        type=int,
        default=None,
        metavar="N",
        help="replay a test run's fresh sample of stored differential games (its seed is "
        "printed in pytest's header); default: a new seed each run",
    )


def pytest_configure(config):
    """Draw the reference sample's seed once per test run: the controller draws it (or takes
    ``--reference-seed``) and hands it to every xdist worker."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        config.reference_seed = workerinput["reference_seed"]
    else:
        chosen = config.getoption("reference_seed")
        config.reference_seed = secrets.randbelow(2**32) if chosen is None else chosen
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_HandSeedToWorkers())
        if workerinput is None and config.getoption("dist", "no") == "loadgroup":
            _check_groups_are_kept()


def _check_groups_are_kept() -> None:
    """Refuse, in one line, a pytest that xdist's ``loadgroup`` cannot group under: from
    pytest 9.2, pytest-xdist (3.8) writes a test's group into a node id pytest no longer
    reads (pytest-xdist#1386), and the tests of a group, which share a cluster or the CUDA
    simulator, would spread over the workers without a word, each starting its own."""
    from importlib.metadata import version

    def release(name: str) -> tuple[int, ...]:
        return tuple(int(part) for part in version(name).split(".")[:2] if part.isdigit())

    if release("pytest") >= (9, 2) and release("pytest-xdist") <= (3, 8):
        raise pytest.UsageError(
            f"pytest {version('pytest')} ignores pytest-xdist {version('pytest-xdist')}'s "
            "test groups; install the dev extra's pytest: pip install -e '.[dev]'"
        )


class _HandSeedToWorkers:
    """xdist's hook, registered only where xdist is installed (pytest rejects an unknown
    hook in a conftest)."""

    @pytest.hookimpl
    def pytest_configure_node(self, node):
        node.workerinput["reference_seed"] = node.config.reference_seed


def pytest_report_header(config):
    seed = config.reference_seed
    return f"reference sample: seed {seed} (replay it with --reference-seed {seed})"


@pytest.fixture(scope="session")
def reference_seed(request) -> int:
    """The seed of this test run's fresh sample of stored games for the references."""
    return request.config.reference_seed


@pytest.fixture(scope="session")
def cardsim_exe() -> str:
    """Path of the installed ``cardsim`` console script (next to this interpreter first)."""
    beside = Path(sys.executable).parent / "cardsim"
    if beside.exists():
        return str(beside)
    found = shutil.which("cardsim")
    if found is None:
        pytest.skip("the cardsim console script is not installed")
    return found


SLOW_MODULES = {
    "test_run_safety",  # real runs killed, disks filled, folders damaged: subprocesses
    "test_report_wording",  # whole reports of many small runs, read for their words
    "test_bench",  # whole benchmark runs in subprocesses
    "test_cluster",  # Dask clusters started, workers and schedulers killed
    "test_cuda",  # the GPU kernel under numba's CUDA simulator (Python speed)
}
"""Test modules that are slow as a whole; ``make test-fast`` leaves them out."""

END_TO_END_FIXTURES = {
    ("test_comparison_verdict", "study"),  # a study of 8 runs and its comparison reports
    ("test_python_api", "match_run"),
    ("test_python_api", "two_rules"),
    ("test_explore", "searched"),  # a whole search and its report
    ("test_analysis_shedding", "built"),  # runs and their reports
    ("test_analysis_matches", "built"),
    ("test_analysis_report", "built"),
    ("test_analysis_compare", "compared"),
    ("test_analysis_paired", "paired_report"),
    ("test_balance", "balanced"),
    ("test_summary", "bmn"),
    ("test_summary", "shedding_matches"),
    ("test_charts_print", "reported"),
}
"""Module fixtures that play whole runs and write their reports: the tests that use one
are ``end_to_end`` (as are those marked so in their module): ``make test`` runs them, and
``make test-fast`` leaves them out, its unit, property and differential tests checking
the same kernels, references, rules and statistics on their own."""


def pytest_ignore_collect(collection_path, config):
    """Leave the :data:`SLOW_MODULES` uncollected (not even imported) when ``-m`` leaves out
    the slow tests, as ``make test-fast`` does: each of its workers saves their imports."""
    if "not slow" in (config.option.markexpr or "") and collection_path.stem in SLOW_MODULES:
        return True
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` (left out by ``make test-fast``, run by ``make test``) every test of a
    :data:`SLOW_MODULES` module, every test that runs ``cardsim`` or Python in a
    subprocess (it uses the ``cardsim_exe`` fixture, or its name says ``script`` or
    ``never_imports``), and every test that needs the run's ``LocalCluster``.

    Put the tests of a module that share a module-scoped fixture in one xdist group (named
    for the module), unless they have a group already: otherwise each worker that runs one
    of them builds the fixture again.

    Mark ``end_to_end`` every test that uses one of :data:`END_TO_END_FIXTURES`."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1]
        subprocess_test = (
            "cardsim_exe" in getattr(item, "fixturenames", ())
            or "script" in item.name
            or "never_imports" in item.name  # a fresh interpreter, to see what it imports
        )
        cluster_test = "local_address" in getattr(item, "fixturenames", ())
        if module in SLOW_MODULES or subprocess_test or cluster_test:
            item.add_marker(pytest.mark.slow)
        fixtures = getattr(item, "fixturenames", ())
        if any((module, name) in END_TO_END_FIXTURES for name in fixtures):
            item.add_marker(pytest.mark.end_to_end)
        if item.get_closest_marker("xdist_group") is None and _uses_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(f"module-{module}"))


def _uses_module_fixture(item) -> bool:
    """Whether ``item`` uses a fixture of module scope (directly or through another)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(defs and defs[-1].scope == "module" for defs in info.name2fixturedefs.values())


class _RunCluster:
    """The test run's ``LocalCluster`` of two one-thread worker processes: started by the
    first test that needs it, closed as soon as the next test of this worker is outside the
    xdist group ``cluster`` (an idle cluster takes a fifth of a core, polling), started
    again if a later test needs it."""

    def __init__(self) -> None:
        self.cluster = None

    def address(self) -> str:
        if self.cluster is None:
            import logging

            import distributed

            self.cluster = distributed.LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.CRITICAL,
            )
        return self.cluster.scheduler_address

    def close(self) -> None:
        if self.cluster is not None:
            cluster, self.cluster = self.cluster, None
            cluster.close()


_RUN_CLUSTER = _RunCluster()


@pytest.fixture
def local_address() -> str:
    """The address of the run's ``LocalCluster``, shared by every test of the run that
    needs a cluster but does not test starting one (they are all in the xdist group
    ``cluster``, so it starts once, in one worker)."""
    pytest.importorskip("distributed")
    return _RUN_CLUSTER.address()


def pytest_runtest_teardown(item, nextitem):
    if nextitem is None or _group(nextitem) != "cluster":
        _RUN_CLUSTER.close()


def pytest_sessionfinish(session):
    _RUN_CLUSTER.close()


def _group(item) -> str | None:
    """The xdist group ``item`` is marked with, if any."""
    marker = item.get_closest_marker("xdist_group")
    if marker is None:
        return None
    return marker.args[0] if marker.args else marker.kwargs.get("name")


@pytest.fixture(scope="session")
def simulator_runs(tmp_path_factory) -> dict:
    """Every check under numba's CUDA simulator, run once in one interpreter
    (``tests/cuda_simulator.py``): job name -> CompletedProcess. Its tests are all in the
    xdist group ``cuda``, so it runs once per test run."""
    import importlib.util

    if importlib.util.find_spec("numba_cuda") is None:
        pytest.skip("numba-cuda is not installed (pip install 'cardsim[cuda]')")
    from cuda_simulator import run_jobs

    return run_jobs(tmp_path_factory.mktemp("cuda-simulator"))


@pytest.fixture(autouse=True)
def one_numba_thread(monkeypatch):
    """Each test plays on one numba thread unless it asks for more (``threads=2``,
    ``--threads 2``): xdist runs one test per core, and two tests of two threads each on two
    cores spend their time waiting for each other. Tests of thread independence still ask
    for two threads and get them (the environment's ``NUMBA_NUM_THREADS`` is left alone)."""
    import numba

    import simulate.runs.request

    monkeypatch.setattr(simulate.runs.request, "default_threads", lambda: 1)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


@pytest.fixture(autouse=True, scope="session")
def cli_built_once():
    """typer builds the click command of an app from its functions' signatures on every
    call (``app()``, ``CliRunner.invoke``): about 50 ms each, over the hundreds of in-process
    CLI tests. Here it is built once per app and set of games (a plugin installed for a
    test changes the set), as the console script builds it once per process."""
    from unittest import mock

    import typer.main
    import typer.testing

    from simulate.games import registry

    build = typer.main.get_command
    built: dict = {}

    def get_command(app):
        key = (id(app), registry.game_names())
        if key not in built:
            built[key] = (app, build(app))  # the app kept alive: its id is not reused
        return built[key][1]

    with (
        mock.patch.object(typer.main, "get_command", get_command),
        mock.patch.object(typer.testing, "_get_command", get_command),
    ):
        yield


@pytest.fixture(autouse=True, scope="session")
def small_charts():
    """Every report a test writes has its charts as PNG at the lowest resolution allowed:
    set for the whole run, so that module and session fixtures, which pytest builds before
    any test's own fixtures, write them so too. Where the defaults are under test, a test
    marked ``print_output``, or a fixture inside ``chart_defaults.print_defaults()``, sees
    them (every format at 200 dpi)."""
    import chart_defaults

    with chart_defaults.small_charts():
        yield


@pytest.fixture(autouse=True)
def print_output(request):
    """A user's report defaults for the tests marked ``print_output``."""
    import chart_defaults

    if request.node.get_closest_marker("print_output") is None:
        yield
    else:
        with chart_defaults.print_defaults():
            yield
