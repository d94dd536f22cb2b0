"""Terminal output shared by the commands: progress bars and result tables (rich)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Table

PIPE_WIDTH = 132  # the width of tables written to a log or a pipe


def output_console() -> Console:
    """The console a command prints its results on, made when it prints (stdout may have been
    replaced since import, e.g. by click's test runner). On a terminal: its width and colours.
    To a log or a pipe: tables laid out at least ``PIPE_WIDTH`` wide and no line ever broken, so
    a line reads the same whatever the width (a long path never pushes words onto the next line)."""
    here = Console(highlight=False)
    if here.is_terminal:
        return here
    return Console(highlight=False, width=max(here.width, PIPE_WIDTH), soft_wrap=True)


def spec_label(spec_path: str | Path) -> str:
    """A spec as the user names it: a shipped spec by its name, another file by its path relative
    to the working folder when it lies under it (else as given), never a long absolute path."""
    from certify.spec import SPECS_DIR

    path = Path(spec_path)
    if path.resolve().parent == SPECS_DIR.resolve():
        return path.stem
    if path.is_absolute():
        try:
            return str(path.resolve().relative_to(Path(os.getcwd()).resolve()))
        except ValueError:
            pass
    return str(path)


@contextmanager
def progress_bar(label: str, unit: str = "rounds") -> Iterator[Callable[[int, int], None]]:
    """A progress bar with the rate and the time left; yields ``update(done, total)``.
    Quiet (no bar) when the output is not a terminal."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TaskProgressColumn(), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
               TextColumn("left"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=False) as progress:
        task = progress.add_task(label, total=None, rate="")

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)
            speed = progress.tasks[0].speed
            progress.update(task, rate=f"{speed:,.0f} {unit}/s" if speed else "")

        yield update


def _fmt_p(p) -> str:
    return "" if p is None else f"{p:.4g}"


def results_table(title: str, tests) -> Table:
    """A table of ``TestResult``s: name, statistic, dof, p-value, verdict."""
    table = Table(title=title, title_justify="left")
    for col, justify in (("test", "left"), ("statistic", "right"), ("dof", "right"), ("p-value", "right"),
                         ("n", "right"), ("verdict", "left")):
        table.add_column(col, justify=justify)
    for t in tests:
        style = {"pass": "green", "FAIL": "bold red"}.get(t.verdict, "yellow")
        table.add_row(t.name, "" if t.statistic is None else f"{t.statistic:.4g}",
                      "" if t.dof is None else f"{t.dof:g}", _fmt_p(t.pvalue), f"{t.n:,}",
                      f"[{style}]{t.verdict}[/{style}]")
    return table


def print_simulation(result, verification) -> None:
    console = output_console()
    cfg = result.config
    chunks = len(result.per_chunk)
    if result.resumed_chunks:  # the time covers only the chunks played now: no rate over all the rounds
        pace = f", {result.resumed_chunks} of {chunks} chunks resumed from the checkpoint"
    else:
        pace = f", {result.rounds / result.seconds:,.0f} rounds/s" if result.seconds else ""
    console.print(f"[bold]{escape(spec_label(cfg.spec_path))}[/bold]: {result.rounds:,} rounds, seed {cfg.seed}, "
                  f"{chunks} chunk{'' if chunks == 1 else 's'} of {cfg.chunk_rounds:,}"
                  + (f", FAULT {cfg.fault}" if cfg.fault else "") + pace)
    if result.resumed_chunks:
        console.print(f"  checkpoint: {result.checkpoint_summary()}")
    if verification is None:
        for w in result.kernel.wagers:
            table = Table(title=f"{w.name}: tallies (not verified)", title_justify="left")
            table.add_column("event")
            table.add_column("rounds", justify="right")
            for event, count in zip(w.events, result.counts(w.name)):
                table.add_row(event, f"{int(count):,}")
            console.print(table)
        return
    for wager, r in verification.rtp.items():
        console.print(f"  {wager}: observed RTP {100 * r['observed_rtp']:.4f}% "
                      f"({100 * r['ci_level']:.0f}% CI {100 * r['ci_low']:.4f}% .. {100 * r['ci_high']:.4f}%), "
                      f"theoretical {100 * r['theoretical_rtp']:.4f}%")
    console.print(results_table("verification against the PAR sheet", verification.tests))
    fam = verification.family
    confirmed = verification.confirmation if verification.confirmation is not None else fam
    failing = confirmed.failing + [t.name for t in verification.tests
                                   if t.applicable and t.pvalue is None and t.passed is False]
    if verification.confirmation is not None and not fam.passed:  # both stages of the confirmatory rule
        console.print(f"confirmation: {verification.confirmation.summary()}")
    verdict = "[green]PASS[/green]" if verification.passed else f"[bold red]FAIL[/bold red] ({', '.join(failing)})"
    console.print(f"family verdict ({fam.method}, alpha {fam.alpha}): {verdict}")
