"""The ``certify`` command. Each subcommand is a thin shell over the module that owns the work."""

from __future__ import annotations

import sys

import click

from certify import __version__


class CertifyError(click.ClickException):
    """A user-facing error: printed as one clear message, exit code 2."""

    exit_code = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="certify")
def cli() -> None:
    """Certify a casino table game: RNG, shuffle, game math, engine, procedures, signed report."""


@cli.command()
@click.argument("cards", nargs=-1, required=True)
def hand(cards: tuple[str, ...]) -> None:
    """Evaluate a 5-card hand, or the best five of 7 cards (e.g. AS KS QS JS 10S)."""
    from certify import hands
    from certify.cards import CardError, cards_str, parse_cards

    try:
        parsed = parse_cards(cards, count=(5, 7))
    except CardError as exc:
        raise CertifyError(str(exc)) from exc
    value = hands.rank_hand(parsed)
    category = hands.category_of(value)
    rank = hands.hand_class(value)
    click.echo(f"{hands.CATEGORY_NAMES[category]}  (rank {rank} of {len(hands.CLASS_VALUES)}, 1 = best; value {value})")
    if len(parsed) == 7:
        click.echo(f"best five: {cards_str(hands.best_five(parsed))}")


@cli.command()
@click.argument("spec")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Also write the PAR sheet as JSON.")
def analyze(spec: str, json_path: str | None) -> None:
    """Print the PAR sheet of a game SPEC (a specs/*.yaml path or a spec name): exact where countable."""
    import json
    import os
    import tempfile

    from certify.analysis import par_sheet
    from certify.analysis.par import ParError, format_sheet
    from certify.spec import SpecError, load_spec

    try:
        sheet = par_sheet(load_spec(spec))
    except (SpecError, ParError) as exc:
        raise CertifyError(str(exc)) from exc
    click.echo(format_sheet(sheet))
    if json_path:
        text = json.dumps(sheet.to_dict(), indent=2)
        folder = os.path.dirname(os.path.abspath(json_path))
        try:  # write beside the target, then rename: never a half-written file
            with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, suffix=".tmp") as tmp:
                tmp.write(text + "\n")
            os.replace(tmp.name, json_path)
        except OSError as exc:
            raise CertifyError(f"cannot write {json_path}: {exc.strerror or exc}") from exc
        click.echo(f"wrote {json_path}")


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None,
              help="Also write every scenario's expected and actual settlement (and event log) as JSON.")
def procedures(files: tuple[str, ...], json_path: str | None) -> None:
    """Play table-procedure scenarios (fixtures/procedures/*.yaml) through the engines.

    One line per scenario. Exit 0 when all pass, 1 when any fails (expected against actual is
    shown), 2 on a malformed fixture (file, scenario and field named)."""
    from certify.procedures import FixtureError, run_files, write_json

    try:
        results = run_files(files)
    except FixtureError as exc:
        raise CertifyError(str(exc)) from exc
    for result in results:
        click.echo(result.line())
        for diff in result.differences:
            click.echo(f"      {diff}")
    failed = sum(not r.passed for r in results)
    click.echo(f"{len(results) - failed} of {len(results)} scenarios pass")
    if json_path:
        write_json(results, json_path)
        click.echo(f"wrote {json_path}")
    if failed:
        sys.exit(1)


@cli.command("spec")
@click.argument("specs", nargs=-1)
def spec_check(specs: tuple[str, ...]) -> None:
    """Validate game specs (names in specs/ or paths; default: every spec in specs/).

    Prints one line per valid spec; a malformed spec exits 2 naming file, field and expectation."""
    from certify.spec import SpecError, load_spec, spec_names

    for ref in specs or spec_names():
        try:
            game = load_spec(ref)
        except SpecError as exc:
            raise CertifyError(str(exc)) from exc
        click.echo(f"ok  {game.name:<28} {game.family:<13} {game.title}  [{'; '.join(game.source.documents)}]")


def main() -> None:
    cli(prog_name="certify")


if __name__ == "__main__":
    sys.exit(main())
