"""The ``certify`` command. Each subcommand is a thin shell over the module that owns the work."""

from __future__ import annotations

import sys

import click

from certify import __version__


class CertifyError(click.ClickException):
    """A user-facing error: printed as one clear message, exit code 2."""

    exit_code = 2


def _writable_target(_ctx, param, value):
    """Refuse an output path that cannot be written before the work that produces it (minutes, for
    a PAR sheet or a battery): its nearest existing folder must be a writable folder."""
    import os
    from pathlib import Path

    if value is None:
        return value
    folder = Path(value).absolute().parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise click.BadParameter(f"cannot write {value}: {folder} is a file, not a folder", param=param)
    if not os.access(folder, os.W_OK):
        raise click.BadParameter(f"cannot write {value}: no permission to write in {folder}", param=param)
    return value


def _os_reason(exc: OSError) -> str:
    """'File exists: reports' rather than a bare 'File exists' (the path at fault may be a parent)."""
    if exc.strerror and exc.filename:
        return f"{exc.strerror}: {exc.filename}"
    return exc.strerror or str(exc)


_NO_CACHE = click.option("--no-cache", is_flag=True,
                         help="Compute the PAR sheet instead of reading the PAR-sheet cache (the fresh sheet "
                              "is stored).")


def _par_sheet_of(game, no_cache: bool):
    """The spec's PAR sheet through the cache (``certify.analysis.cache``) and its provenance, which
    the caller states on stderr after its output (stdout and the JSON are the same either way)."""
    from certify.analysis.cache import load_or_compute

    return load_or_compute(game, use_cache=not no_cache)


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
@click.option("--json", "json_path", type=click.Path(dir_okay=False), callback=_writable_target,
              help="Also write the PAR sheet as JSON.")
@click.option("--meter", help="Progressive meter to compute the progressive wager at (default: the spec's reset).")
@click.option("--compare", "compare_path", type=click.Path(dir_okay=False),
              help="A published return table (CSV: event, probability[, pays, return, suite_event]) "
                   "to compare row by row; exit 1 if a row lies outside the family-wise bound.")
@click.option("--wager", "wager_name", default="main game", show_default=True,
              help="The wager --compare checks, by its name in the sheet.")
@click.option("--published-samples", type=click.FloatRange(min=1), default=None,
              help="Rounds behind the published table, when it was simulated (adds its binomial SE).")
@_NO_CACHE
def analyze(spec: str, json_path: str | None, meter: str | None, compare_path: str | None,
            wager_name: str, published_samples: float | None, no_cache: bool) -> None:
    """Print the PAR sheet of a game SPEC (a specs/*.yaml path or a spec name): exact where countable."""
    import json
    from fractions import Fraction

    from certify.analysis.compare import CompareError, compare, format_comparison, read_published
    from certify.analysis.par import ParError, format_sheet
    from certify.spec import SpecError, load_spec

    published = None
    if compare_path is not None:  # read before the minutes of work, so a bad file fails at once
        try:
            published = read_published(compare_path)
        except CompareError as exc:
            raise CertifyError(str(exc)) from exc

    try:
        meter_value = None if meter is None else Fraction(meter)
    except (ValueError, ZeroDivisionError):
        raise CertifyError(f"--meter: expected an amount such as 250000.00, got {meter!r}") from None
    try:
        sheet, provenance = _par_sheet_of(load_spec(spec), no_cache)
        if meter_value is not None:
            sheet = sheet.at_meter(meter_value)
    except (SpecError, ParError) as exc:
        raise CertifyError(str(exc)) from exc
    if published is not None:  # a table that does not fit the sheet fails before anything is written
        try:
            wager = sheet.wager(wager_name)
            rows = compare(wager, published, published_samples, source=compare_path)
        except KeyError:
            raise CertifyError(f"--wager: no wager {wager_name!r} in the sheet "
                               f"(have: {', '.join(w.name for w in sheet.wagers)})") from None
        except CompareError as exc:
            raise CertifyError(str(exc)) from exc
    click.echo(format_sheet(sheet))
    click.echo(provenance.describe(), err=True)
    if json_path:
        from certify.atomic import atomic_write

        try:  # never a half-written file
            atomic_write(json_path, json.dumps(sheet.to_dict(), indent=2) + "\n")
        except OSError as exc:
            raise CertifyError(f"cannot write {json_path}: {exc.strerror or exc}") from exc
        click.echo(f"wrote {json_path}")
    if published is not None:
        click.echo("")
        click.echo(format_comparison(wager, rows, 0.99, published_samples, compare_path))
        if any(r.outside for r in rows):
            sys.exit(1)


def _list_faults(ctx: click.Context, _param, value: bool) -> None:
    if value:
        from certify.simulate import all_faults

        click.echo("\n".join(all_faults()))
        ctx.exit()


@cli.command()
@click.argument("spec")
@click.option("--rounds", type=click.IntRange(min=1), default=10_000_000, show_default=True, help="rounds to play")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="master seed of the DRBG sub-streams")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="local worker processes [default: all cores]")
@click.option("--scheduler", default=None, help="address of a Dask distributed scheduler to run the chunks on")
@click.option("--checkpoint", type=click.Path(dir_okay=False), default=None, callback=_writable_target,
              help="checkpoint file [default: reports/checkpoints/<spec>-<seed>-<rounds>.json]")
@click.option("--resume", is_flag=True, help="finish an interrupted run from its checkpoint")
@click.option("--chunk-rounds", type=click.IntRange(min=1), default=None,
              help="rounds per chunk (part of the run's identity; default 131072)")
@click.option("--fault", default=None, help="play a seeded fault (a negative control); see --list-faults")
@click.option("--list-faults", is_flag=True, is_eager=True, expose_value=False, callback=_list_faults,
              help="list the seeded faults and exit")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.01, show_default=True)
@click.option("--verify/--no-verify", default=True, show_default=True,
              help="verify the tallies against the PAR sheet (--no-verify: tallies only)")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, callback=_writable_target,
              help="write the results as JSON")
@_NO_CACHE
def simulate(spec, rounds, seed, workers, scheduler, checkpoint, resume, chunk_rounds, fault, alpha, verify, json_path,
             no_cache):
    """Play SPEC for many rounds with the certified RNG and verify the tallies against the PAR sheet.

    Exit 0 when the verification passes, 1 when it fails, 2 on an error; 130 when interrupted
    (finished chunks stay in the checkpoint: run again with --resume)."""
    import json as json_mod
    import os
    from pathlib import Path

    from certify import simulate as sim
    from certify.atomic import atomic_write
    from certify.console import print_simulation, progress_bar
    from certify.spec import SpecError, load_spec

    try:
        game = load_spec(spec)
        ckpt = Path(checkpoint or f"reports/checkpoints/{game.name}-{seed}-{rounds}.json")
        with progress_bar(f"{game.name}") as update:
            result = sim.simulate(spec, rounds, seed, workers=workers or os.cpu_count() or 1,
                                  scheduler=scheduler, checkpoint=ckpt, resume=resume, fault=fault,
                                  chunk_rounds=chunk_rounds or sim.CHUNK_ROUNDS, progress=update)
        provenance = None
        if verify:
            sheet, provenance = _par_sheet_of(game, no_cache)
        verification = sim.verify(result, sheet, alpha=alpha) if verify else None
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished chunks are kept in {ckpt}; run again with --resume", err=True)
        raise SystemExit(130)
    except (SpecError, sim.SimulationError, FileNotFoundError) as exc:
        raise CertifyError(str(exc)) from exc
    except OSError as exc:  # an unreachable --scheduler, an unwritable checkpoint
        where = f"scheduler {scheduler}" if scheduler else f"checkpoint {ckpt}"
        raise CertifyError(f"{where}: {_os_reason(exc)}") from exc
    print_simulation(result, verification)
    if provenance is not None:
        click.echo(provenance.describe(), err=True)
    if json_path:
        try:
            data = sim.result_to_dict(result, verification)
            if provenance is not None:  # where the sheet verified against came from
                data["par_sheet"] = provenance.to_dict()
            atomic_write(json_path, json_mod.dumps(data, indent=2))
        except OSError as exc:
            raise CertifyError(f"cannot write {json_path}: {_os_reason(exc)}") from exc
    raise SystemExit(0 if verification is None or verification.passed else 1)


def _passphrase_source(passphrase_file: str | None, confirm: bool = False):
    """The key passphrase: --passphrase-file, then $CERTIFY_KEY_PASSPHRASE, then a prompt (a tty only)."""
    import os

    def read() -> bytes:
        if passphrase_file:
            try:
                with open(passphrase_file, "rb") as fh:
                    secret = fh.read().rstrip(b"\r\n")
            except OSError as exc:
                raise CertifyError(f"cannot read the passphrase file {passphrase_file}: {exc.strerror}") from exc
            if not secret:
                raise CertifyError(f"the passphrase file {passphrase_file} is empty")
            return secret
        if os.environ.get("CERTIFY_KEY_PASSPHRASE"):
            return os.environ["CERTIFY_KEY_PASSPHRASE"].encode()
        if not sys.stdin.isatty():
            raise CertifyError("no passphrase: give --passphrase-file or set CERTIFY_KEY_PASSPHRASE")
        return click.prompt("Key passphrase", hide_input=True, confirmation_prompt=confirm).encode()

    return read


_KEY_DIR = click.option("--key-dir", type=click.Path(file_okay=False), default=None,
                        help="Key folder (default: $XDG_CONFIG_HOME/certify or ~/.config/certify).")
_PASSPHRASE_FILE = click.option("--passphrase-file", type=click.Path(dir_okay=False), default=None,
                                help="File whose first line is the key passphrase.")


@cli.command()
@_KEY_DIR
@_PASSPHRASE_FILE
@click.option("--algorithm", type=click.Choice(["ecdsa-p256", "rsa-3072"]), default="ecdsa-p256",
              show_default=True)
@click.option("--organization", default="certify", show_default=True, help="Organisation named in the certificates.")
@click.option("--name", "common_name", default="certify report signing", show_default=True,
              help="Common name of the signing certificate.")
@click.option("--days", type=click.IntRange(1, 3650), default=825, show_default=True,
              help="Validity of the signing certificate.")
@click.option("--force", is_flag=True, help="Replace an existing key.")
def keygen(key_dir, passphrase_file, algorithm, organization, common_name, days, force) -> None:
    """Create a root CA and a report-signing certificate under it (keys passphrase-encrypted)."""
    from pathlib import Path

    from certify import signing

    directory = Path(key_dir) if key_dir else signing.config_dir()
    try:
        paths = signing.keygen(directory, _passphrase_source(passphrase_file, confirm=True)(), algorithm=algorithm,
                               organization=organization, common_name=common_name, days=days, force=force)
    except signing.SigningError as exc:
        raise CertifyError(str(exc)) from exc
    for path in paths.values():
        click.echo(f"wrote {path}")
    click.echo(f"give verifiers the root certificate: {paths[signing.ROOT_CERT]}")


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@_KEY_DIR
@_PASSPHRASE_FILE
def sign(file, key_dir, passphrase_file) -> None:
    """Sign FILE: a PDF in place (PAdES, field Signature1), anything else as FILE.p7s (detached CMS)."""
    from pathlib import Path

    from certify import signing

    try:
        key = signing.load_signing_key(Path(key_dir) if key_dir else None, _passphrase_source(passphrase_file))
        written = signing.sign_file(Path(file), key)
    except signing.SigningError as exc:
        raise CertifyError(f"{file}: {exc}") from exc
    click.echo(f"signed {file} -> {written} by {signing.describe(key.cert)}")
    if key.development:
        click.echo("WARNING: signed with a DEVELOPMENT key (unencrypted, made on this machine): not for submission",
                   err=True)


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--root", "root", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Trusted root certificate (PEM or DER). Default: the roots in the key folder.")
@click.option("--signature", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Detached signature file (default FILE.p7s; not used for a signed PDF).")
@_KEY_DIR
def verify(file, root, signature, key_dir) -> None:
    """Verify FILE's signature: exit 0 if valid, trusted and covering every byte, 1 if not, 2 on usage errors."""
    from pathlib import Path

    from certify import signing

    try:
        roots = [signing.load_root(Path(root))] if root else signing.default_roots(Path(key_dir) if key_dir else None)
        result = signing.verify_file(Path(file), roots, Path(signature) if signature else None)
    except signing.SigningError as exc:
        raise CertifyError(str(exc)) from exc
    if not result.ok:
        click.echo(f"INVALID: {file}: {result.reason}", err=True)
        sys.exit(1)
    click.echo(f"VALID: {file}: signed by {result.signer}; {result.reason}")
    if result.development:
        click.echo("WARNING: signed with a DEVELOPMENT key: not for submission", err=True)


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, callback=_writable_target,
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
        try:
            write_json(results, json_path)
        except OSError as exc:
            raise CertifyError(f"cannot write {json_path}: {_os_reason(exc)}") from exc
        click.echo(f"wrote {json_path}")
    if failed:
        sys.exit(1)


@cli.command()
@click.option("--source", "source_name", type=click.Choice(["drbg:ctr", "drbg:hmac"]), default=None,
              help="our DRBG through rng.streams (seeded by --seed) [default: drbg:ctr unless --file]")
@click.option("--file", "file_path", type=click.Path(dir_okay=False), default=None, help="an RNG output file to test")
@click.option("--format", "file_format", type=click.Choice(["raw", "ascii-bits", "ints", "decks"]), default=None,
              help="format of --file: raw bytes, ASCII 0/1, integers in [--low, --high], one dealt deck a line")
@click.option("--low", type=int, default=None, help="smallest value of an ints file")
@click.option("--high", type=int, default=None, help="largest value of an ints file")
@click.option("--profile", type=click.Choice(["quick", "standard", "lab", "cards", "bits"]), default="standard",
              show_default=True, help="how much data each battery looks at (see certify.stats.battery.PROFILES)")
@click.option("--bits", type=click.IntRange(min=8), default=None, help="bits per SP 800-22 sequence [profile: 1,000,000]")
@click.option("--sequences", type=click.IntRange(min=0), default=None, help="SP 800-22 sequences [profile: 10]")
@click.option("--decks", type=click.IntRange(min=0), default=None,
              help="deals for the card battery [profile; a decks file: all of it; a bit file: 0]")
@click.option("--small-decks", type=click.IntRange(min=0), default=None, help="4- and 5-card deals for the permutation test")
@click.option("--draws", type=click.IntRange(min=0), default=None,
              help="scaled integers for the draw tests [profile; an ints file: all of it; other files: 0]")
@click.option("--cards-per-deal", type=click.IntRange(5, 52), default=52, show_default=True,
              help="cards per line of a decks file (the first cards of a 52-card deck)")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True, help="master seed of the DRBG")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.01, show_default=True)
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="processes for the SP 800-22 sequences [2, or 1 on one core]")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, callback=_writable_target,
              help="write every p-value as JSON")
def rng(source_name, file_path, file_format, low, high, profile, bits, sequences, decks, small_decks, draws,
        cards_per_deal, seed, alpha, jobs, json_path) -> None:
    """Test an RNG: NIST SP 800-22 on its bits, card and shuffle tests on its deals, draw tests on
    its scaled integers (a file of integers gets the draw tests only).

    The verdict is Holm-Bonferroni over every test of the three batteries at --alpha (the SP 800-22
    4.2 proportion and uniformity figures are shown beside it). Exit 0 when everything passes,
    1 when a test fails, 2 on a usage or input error (nothing is written then)."""
    import os

    from certify.stats import battery
    from rng.base import RandomSourceError

    if file_path and source_name:
        raise click.UsageError("give --source or --file, not both")
    if file_path and not file_format:
        raise click.UsageError("--file needs --format (raw, ascii-bits, ints or decks)")
    if file_format and not file_path:
        raise click.UsageError("--format needs --file")
    try:
        if file_path:
            source = battery.file_source(file_path, file_format, low=low, high=high, cards_per_deal=cards_per_deal)
            have_bits, have_decks = battery.available_bits(source), battery.available_decks(source)
            have_draws = battery.available_draws(source)
            chosen = battery.resolve_profile(profile, bits=bits)
            if have_draws is not None:
                draws = have_draws if draws is None else draws
                sequences, decks = 0, 0
            elif have_decks is not None:
                decks = have_decks if decks is None else decks
                sequences, draws = 0, 0
            else:
                decks = 0 if decks is None else decks
                draws = 0 if draws is None else draws
                if sequences is None and chosen.sequences:
                    sequences = min(chosen.sequences, (have_bits or 0) // chosen.bits)
                    if sequences == 0:
                        raise ValueError(f"{file_path}: holds {have_bits} bits, fewer than one sequence of "
                                         f"{chosen.bits} bits (--bits)")
            label = f"{file_path} ({file_format})"
        else:
            source = battery.drbg_source(source_name or "drbg:ctr", seed)
            label = source.name
        n_jobs = jobs or min(2, os.cpu_count() or 1)
        result = battery.run_battery(source, profile, alpha=alpha, jobs=n_jobs, bits=bits, sequences=sequences,
                                     decks=decks, small_decks=small_decks, draws=draws, cards_per_deal=cards_per_deal,
                                     source_label=label, progress=_stderr_progress())
    except (ValueError, RandomSourceError, OSError) as exc:
        raise CertifyError(str(exc)) from exc
    _print_rng_table(result)
    if json_path:
        try:
            battery.write_json_atomic(json_path, result)
        except OSError as exc:
            raise CertifyError(f"cannot write {json_path}: {exc}") from exc
        click.echo(f"wrote {json_path}")
    if not result["passed"]:
        sys.exit(1)


def _stderr_progress():
    """Progress lines on stderr when it is a terminal (never mixed into piped output)."""
    if not sys.stderr.isatty():
        return None
    return lambda message: click.echo(f"  {message}", err=True)


def _print_rng_table(result) -> None:
    from rich.console import Console
    from rich.table import Table

    from certify.stats.battery import summary_rows

    def p(x):
        return "-" if x is None else f"{x:.3g}"

    profile = result["profile"]
    table = Table(title=f"RNG battery: {result['source']}",
                  caption=f"alpha {result['alpha']}; pass: sequences passing in the worst p-value series; NIST 4.2: "
                          "series outside 4.2.1/4.2.2 (for reference); verdict: Holm-Bonferroni over all tests "
                          "(JSON 'method')")
    # pass: worst proportion of sequences passing over the p-value series; NIST 4.2: series outside
    # the 4.2.1 interval or below the 4.2.2 threshold (reported; the verdict is the Holm column)
    for column in ("test", "sample", "pass", "min P_T", "NIST 4.2", "min p", "test p", "Holm p", "verdict"):
        table.add_column(column, no_wrap=True, justify="left" if column in ("test", "verdict", "NIST 4.2") else "right")
    battery_seen = None
    for row in summary_rows(result):
        if battery_seen is not None and row["battery"] != battery_seen:
            table.add_section()
        battery_seen = row["battery"]
        style = "bold red" if row["verdict"] == "FAIL" else ("dim" if row["verdict"] != "pass" else None)
        table.add_row(f"{row['battery']} {row['test']}", row["sample"], row["proportion"], p(row["uniformity"]),
                      row["nist"], p(row["min_p"]), p(row["member_p"]), p(row["adjusted_p"]), row["verdict"], style=style)
    console = Console()
    if console.width < 132:
        console = Console(width=132)
    console.print(table)
    rows = summary_rows(result)
    skipped = [f"{row['battery']} {row['test']}" for row in rows if row["verdict"] == "n/a"]
    if skipped:  # a PASS over fewer tests than asked for must not read as a full pass
        console.print(f"not applicable (sample too small for the test, or no data of its kind): {len(skipped)} of "
                      f"{len(rows)} tests: {', '.join(skipped)}")
    if result["sp800_22_skipped"]:
        console.print(f"SP 800-22 not run: {result['sp800_22_skipped']}")
    verdict = "[bold green]PASS[/]" if result["passed"] else "[bold red]FAIL[/]: " + ", ".join(result["failing"])
    looked = [f"{profile['sequences']} x {profile['bits']:,} bits" if result["sp800_22"] else "",
              f"{profile['decks']:,} deals" if result["cards"] else "",
              f"{profile['draws']:,} draws" if result["draws"] else ""]
    console.print(f"{verdict}  ({', '.join(x for x in looked if x)}; {result['seconds']:.1f} s)")


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


@cli.command("run")
@click.argument("spec")
@click.option("--profile", type=click.Choice(["quick", "lab"]), default="quick", show_default=True,
              help="quick: minutes, CI-size samples; lab: lab sample sizes.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Master seed (default: a fresh random seed, printed and committed in the report).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports", show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Local worker processes [all cores].")
@click.option("--issued-at", type=click.DateTime(["%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d"]), default=None,
              help="Pin the report's time stamp (UTC; default $SOURCE_DATE_EPOCH, else now).")
@_KEY_DIR
@_PASSPHRASE_FILE
@_NO_CACHE
def run_command(spec, profile, seed, out_dir, workers, issued_at, key_dir, passphrase_file, no_cache) -> None:
    """Certify SPEC: RNG batteries, PAR sheet, simulation, procedures; write the signed report.

    The PAR sheet is read from the PAR-sheet cache when a checked entry exists (the report says so,
    with the entry's digest); --no-cache and --profile lab compute it.
    Writes OUT/<game>-<spec version>.pdf, .json and .json.p7s. Exit 0 when the verdict is PASS,
    1 when it is FAIL or INCOMPLETE, 2 on a usage or input error (no report is written then).
    """
    import os
    from pathlib import Path

    from certify import signing
    from certify.report import ReportDataError
    from certify.run import run
    from certify.spec import SpecError, load_spec

    def progress(message: str) -> None:
        click.echo(message, err=True)

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if issued_at is None and epoch is not None and not epoch.strip().isdigit():  # fail now, not after the run
        raise CertifyError(f"SOURCE_DATE_EPOCH must be an integer of seconds since 1970, got {epoch!r}")
    try:
        load_spec(spec)  # a bad spec fails before a development key is created
        key = signing.load_signing_key(Path(key_dir) if key_dir else None, _passphrase_source(passphrase_file))
        if key.development:
            progress(f"signing with the DEVELOPMENT key in {key.directory} (not for submission)")
        outcome = run(spec, profile, seed, out_dir, signing_key=key, workers=workers, issued_at=issued_at,
                      progress=progress, use_cache=not no_cache)
    except (signing.SigningError, SpecError, ReportDataError) as exc:
        raise CertifyError(str(exc)) from exc
    except KeyboardInterrupt:
        click.echo("interrupted: no report was written", err=True)
        sys.exit(130)
    for kind, path in outcome["paths"].items():
        click.echo(f"wrote {path}")
    timings = ", ".join(f"{k} {v:.1f} s" for k, v in outcome["timings"].items())
    click.echo(f"seed {outcome['seed']}; {timings}")
    click.echo(f"verdict: {outcome['verdict']}")
    if outcome["verdict"] != "PASS":
        sys.exit(1)


def main() -> None:
    cli(prog_name="certify")


if __name__ == "__main__":
    sys.exit(main())
