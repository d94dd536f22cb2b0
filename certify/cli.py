"""The ``certify`` command. Each subcommand is a thin shell over the module that owns the work."""

from __future__ import annotations

import sys

import click

from certify import __version__, errors
from certify.validate import MAX_CHUNK_ROUNDS, MAX_ROUNDS, MAX_WORKERS, check_amount, click_alpha, click_number


# A command's own refusal is an input error (exit 2); it is mapped with every other error below.
CertifyError = errors.InputError
DEBUG_ENV = "CERTIFY_DEBUG"


class _Refusal(click.ClickException):
    """An error as the user sees it: one line on stderr and its exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file=None) -> None:
        click.echo(f"Error: {self.format_message()}", err=True)


def exit_code_of(exc: BaseException) -> int:
    """The one map from an error to the command's exit code: a ``certify.errors.CertifyError``
    carries its own (input 2, failed verification 1); ``rng``'s errors (the certified module
    imports nothing of ``certify``) and OS errors are input errors (2); anything unexpected is 2."""
    if isinstance(exc, errors.CertifyError):
        return exc.exit_code
    return 2


def _message(exc: BaseException) -> str:
    from rng.base import RandomSourceError
    from rng.sources import SourceFormatError

    if isinstance(exc, (errors.CertifyError, RandomSourceError, SourceFormatError)):
        text = str(exc)
    elif isinstance(exc, OSError):
        text = _os_reason(exc)
    elif isinstance(exc, MemoryError):
        text = "out of memory: ask for smaller samples"
    else:
        text = (f"internal error ({type(exc).__name__}: {exc}); run with --debug or {DEBUG_ENV}=1 for the "
                "traceback, and please report it")
    return " ".join(text.split("\n")[:1]) if not isinstance(exc, errors.CertifyError) else text


class _CertifyGroup(click.Group):
    """Maps every exception a command raises to a message and an exit code, in one place: no
    traceback reaches a user unless asked for (--debug, or $CERTIFY_DEBUG=1)."""

    def invoke(self, ctx: click.Context):
        import os

        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit,
                KeyboardInterrupt):
            raise
        except Exception as exc:
            if (ctx.params.get("debug") or os.environ.get(DEBUG_ENV, "") not in ("", "0")):
                import traceback

                traceback.print_exc()
            raise _Refusal(_message(exc), exit_code_of(exc)) from exc


def _preflight(check_name: str):
    """A click callback that refuses an output path before the work that produces it (minutes, for
    a PAR sheet or a battery), with the atomic writer's own check (``certify.atomic``): a file must
    be a regular file or not exist (never a device, FIFO, link or folder), a folder must be one we
    may write, under a folder that exists or can be created."""

    def callback(_ctx, param, value):
        from certify import atomic

        if value is None:
            return value
        try:
            getattr(atomic, check_name)(value)
        except atomic.OutputPathError as exc:
            raise click.BadParameter(str(exc), param=param) from None
        return value

    return callback


_writable_target = _preflight("check_output_path")
_writable_folder = _preflight("check_output_dir")  # run --out, keygen --key-dir


def _os_reason(exc: OSError) -> str:
    """'File exists: reports' rather than a bare 'File exists' (the path at fault may be a parent)."""
    if exc.strerror and exc.filename:
        return f"{exc.strerror}: {exc.filename}"
    return exc.strerror or str(exc)


SEED = click_number(0, 2**256 - 1, integer=True, why="a master seed of at most 256 bits")
WORKERS = click_number(1, MAX_WORKERS, integer=True)
DRAW_BOUND = click_number(-(2**62), 2**62, integer=True, why="the draw tests hold values as 64-bit integers")


_NO_CACHE = click.option("--no-cache", is_flag=True,
                         help="Compute the PAR sheet instead of reading the PAR-sheet cache (the fresh sheet "
                              "is stored).")


def _par_sheet_of(game, no_cache: bool):
    """The spec's PAR sheet through the cache (``certify.analysis.cache``) and its provenance, which
    the caller states on stderr after its output (stdout and the JSON are the same either way)."""
    from certify.analysis.cache import load_or_compute

    return load_or_compute(game, use_cache=not no_cache)


@click.group(cls=_CertifyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="certify")
@click.option("--debug", is_flag=True, help=f"Show the traceback of an unexpected error (or set {DEBUG_ENV}=1).")
def cli(debug: bool) -> None:
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
@click.option("--published-samples", type=click_number(1, 10**15, why="rounds behind a published table"), default=None,
              help="Rounds behind the published table, when it was simulated (adds its binomial SE).")
@_NO_CACHE
def analyze(spec: str, json_path: str | None, meter: str | None, compare_path: str | None,
            wager_name: str, published_samples: float | None, no_cache: bool) -> None:
    """Print the PAR sheet of a game SPEC (a specs/*.yaml path or a spec name): exact where countable."""
    import json
    from decimal import Decimal, InvalidOperation
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
        meter_value = None if meter is None else Fraction(check_amount(Decimal(meter.strip()), "--meter", low=0))
    except InvalidOperation:
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
@click.option("--rounds", type=click_number(1, MAX_ROUNDS, integer=True, why="money is tallied in 64-bit integers"),
              default=10_000_000, show_default=True, help="rounds to play")
@click.option("--seed", type=SEED, default=1, show_default=True, help="master seed of the DRBG sub-streams")
@click.option("--workers", type=WORKERS, default=None, help="local worker processes [default: all cores]")
@click.option("--scheduler", default=None, help="address of a Dask distributed scheduler to run the chunks on")
@click.option("--checkpoint", type=click.Path(dir_okay=False), default=None, callback=_writable_target,
              help="checkpoint file [default: reports/checkpoints/<spec>-<seed>-<rounds>.json]")
@click.option("--resume", is_flag=True, help="finish an interrupted run from its checkpoint (verified: digests, "
                                              "and a random sample of its chunks played again)")
@click.option("--replay-fraction", type=click_number(0, 1, low_open=True, why="a share of the checkpointed chunks"), default=0.5, show_default=True,
              help="with --resume: share of the checkpointed chunks played again to prove them (1: all)")
@click.option("--chunk-rounds", type=click_number(1, MAX_CHUNK_ROUNDS, integer=True, why="decks a worker deals at once"),
              default=None,
              help="rounds per chunk (part of the run's identity; default 131072)")
@click.option("--fault", default=None, help="play a seeded fault (a negative control); see --list-faults")
@click.option("--list-faults", is_flag=True, is_eager=True, expose_value=False, callback=_list_faults,
              help="list the seeded faults and exit")
@click.option("--alpha", type=click_alpha(), default=0.01, show_default=True)
@click.option("--verify/--no-verify", default=True, show_default=True,
              help="verify the tallies against the PAR sheet (--no-verify: tallies only)")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, callback=_writable_target,
              help="write the results as JSON")
@_NO_CACHE
def simulate(spec, rounds, seed, workers, scheduler, checkpoint, resume, replay_fraction, chunk_rounds, fault, alpha,
             verify, json_path, no_cache):
    """Play SPEC for many rounds with the certified RNG and verify the tallies against the PAR sheet.

    Exit 0 when the verification passes, 1 when it fails (or a resumed checkpoint does not verify),
    2 on an error (a malformed checkpoint, one locked by another run); 130 when interrupted
    (finished chunks stay in the checkpoint: run again with --resume)."""
    import json as json_mod
    import os
    from pathlib import Path

    from certify import errors
    from certify import simulate as sim
    from certify.analysis import par_sheet
    from certify.atomic import OutputPathError, atomic_write, check_output_path
    from certify.console import print_simulation, progress_bar
    from certify.spec import SpecError, load_spec

    if no_cache:  # the kernel's cached tables are not read either
        from certify.analysis.cache import refuse_reads

        refuse_reads("--no-cache")
    try:
        game = load_spec(spec)
        ckpt = check_output_path(checkpoint or f"reports/checkpoints/{game.name}-{seed}-{rounds}.json")
        with progress_bar(f"{game.name}") as update:
            result = sim.simulate(spec, rounds, seed, workers=workers or os.cpu_count() or 1,
                                  scheduler=scheduler, checkpoint=ckpt, resume=resume, fault=fault,
                                  chunk_rounds=chunk_rounds or sim.CHUNK_ROUNDS, progress=update,
                                  replay_fraction=replay_fraction)
        provenance = None
        if verify:
            sheet, provenance = _par_sheet_of(game, no_cache)
        verification = sim.verify(result, sheet, alpha=alpha, workers=workers or os.cpu_count() or 1,
                                  scheduler=scheduler) if verify else None
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished chunks are kept in {ckpt}; run again with --resume", err=True)
        raise SystemExit(130)
    except (SpecError, sim.SimulationError, FileNotFoundError, OutputPathError, errors.InputError) as exc:
        raise CertifyError(str(exc)) from exc
    except errors.VerificationFailed as exc:  # a checkpoint that does not verify
        click.echo(f"Error: {exc}", err=True)
        raise SystemExit(exc.exit_code) from exc
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
        except (OSError, OutputPathError) as exc:
            raise CertifyError(f"cannot write {json_path}: {_os_reason(exc)}") from exc
    raise SystemExit(0 if verification is None or verification.passed else 1)


def _passphrase_source(passphrase_file: str | None, confirm: bool = False, prompt: str = "Key passphrase",
                       environment: bool = True):
    """The key passphrase: --passphrase-file, then $CERTIFY_KEY_PASSPHRASE (if ``environment``), then a
    prompt (a tty only)."""
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
        if environment and os.environ.get("CERTIFY_KEY_PASSPHRASE"):
            return os.environ["CERTIFY_KEY_PASSPHRASE"].encode()
        if not sys.stdin.isatty():
            raise CertifyError("no passphrase: give --passphrase-file" +
                               (" or set CERTIFY_KEY_PASSPHRASE" if environment else ""))
        return click.prompt(prompt, hide_input=True, confirmation_prompt=confirm).encode()

    return read


_ISSUED_AT = click.option("--issued-at", type=click.DateTime(["%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d"]), default=None,
                          help="Pin the report's time stamp (UTC; default $SOURCE_DATE_EPOCH, else now).")
_KEY_DIR = click.option("--key-dir", type=click.Path(file_okay=False), default=None,
                        help="Key folder (default: $XDG_CONFIG_HOME/certify or ~/.config/certify).")
_KEY_DIR_OUT = click.option("--key-dir", type=click.Path(file_okay=False), default=None, callback=_writable_folder,
                            help="Key folder (default: $XDG_CONFIG_HOME/certify or ~/.config/certify).")
_PASSPHRASE_FILE = click.option("--passphrase-file", type=click.Path(dir_okay=False), default=None,
                                help="File whose first line is the key passphrase.")


@cli.command()
@_KEY_DIR_OUT
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

    from certify.atomic import OutputPathError, check_output_dir, check_output_path

    directory = Path(key_dir) if key_dir else signing.config_dir()
    try:  # every file keygen writes, before the passphrase is asked for
        check_output_dir(directory)
        for name in (signing.ROOT_CERT, signing.ROOT_KEY, signing.SIGNER_CERT, signing.SIGNER_KEY):
            check_output_path(directory / name)
    except OutputPathError as exc:
        raise CertifyError(str(exc)) from exc
    try:
        paths = signing.keygen(directory, _passphrase_source(passphrase_file, confirm=True)(), algorithm=algorithm,
                               organization=organization, common_name=common_name, days=days, force=force)
    except signing.SigningError as exc:
        raise CertifyError(str(exc)) from exc
    for path in paths.values():
        click.echo(f"wrote {path}")
    click.echo(f"give verifiers the root certificate: {paths[signing.ROOT_CERT]}")


@cli.command()
@_KEY_DIR
@_PASSPHRASE_FILE
@click.option("--new-passphrase-file", type=click.Path(dir_okay=False), default=None,
              help="File whose first line is the new passphrase (default: a prompt).")
def rekey(key_dir, passphrase_file, new_passphrase_file) -> None:
    """Re-encrypt the private keys under a new passphrase with scrypt (certificates unchanged).

    For keys written before scrypt (PBKDF2, 2,048 iterations) or under a trivial passphrase."""
    from pathlib import Path

    from certify import signing

    directory = Path(key_dir) if key_dir else signing.config_dir()
    try:
        old = _passphrase_source(passphrase_file)()
        new = _passphrase_source(new_passphrase_file, confirm=True, prompt="New key passphrase",
                                 environment=False)()
        written = signing.rekey(directory, old, new)
    except signing.SigningError as exc:
        raise CertifyError(str(exc)) from exc
    for path in written:
        click.echo(f"re-encrypted {path} (scrypt N=2^14, r=8, p=5)")


_ALLOW_INSECURE_KEY = click.option("--allow-insecure-key", is_flag=True,
                                   help="Sign with a production key that is not encrypted, is under a trivial "
                                        "passphrase, or is readable by group or others (refused otherwise).")


def _warn_about_key(key) -> None:
    for warning in key.warnings:
        click.echo(f"WARNING: {warning}", err=True)


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@_KEY_DIR
@_PASSPHRASE_FILE
@_ALLOW_INSECURE_KEY
def sign(file, key_dir, passphrase_file, allow_insecure_key) -> None:
    """Sign FILE: a PDF in place (PAdES, field Signature1), anything else as FILE.p7s (detached CMS)."""
    from pathlib import Path

    from certify import signing
    from certify.atomic import OutputPathError, check_output_path
    from certify.errors import VerificationFailed
    from certify.report.verify import SignerMismatch, check_signer_block

    try:  # a PDF is signed in place, anything else into FILE.p7s: both must be regular files we may write
        check_output_path(file)
        check_output_path(f"{file}{signing.SIGNATURE_SUFFIX}")
    except OutputPathError as exc:
        raise CertifyError(str(exc)) from exc
    try:
        key = signing.load_signing_key(Path(key_dir) if key_dir else None, _passphrase_source(passphrase_file),
                                       allow_insecure=allow_insecure_key)
        _warn_about_key(key)
        try:  # a certify report must already name this key as its signer, or verify would refuse it
            check_signer_block(Path(file).read_bytes(), key.cert)
        except SignerMismatch as exc:
            raise CertifyError(f"{file}: {exc}; a report is signed by the key it was made with (certify run "
                               "--key-dir ...), so that its signer block names it") from exc
        except VerificationFailed:  # not a readable PDF: sign_file says so
            pass
        written = signing.sign_file(Path(file), key)
    except signing.SigningError as exc:
        raise CertifyError(f"{file}: {exc}") from exc
    click.echo(f"signed {file} -> {written} by {signing.describe(key.cert)}")
    if key.development:
        click.echo("WARNING: signed with a DEVELOPMENT key (unencrypted, made on this machine): not for submission",
                   err=True)


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--root", "root", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Trusted root certificate (PEM or DER). Default: the roots in the key folder.")
@click.option("--signature", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Detached signature file (default FILE.p7s; not used for a signed PDF; one FILE only).")
@click.option("--allow-development", is_flag=True,
              help="Accept a signature by a DEVELOPMENT key (exit 0 with a warning; refused otherwise).")
@_KEY_DIR
def verify(files, root, signature, allow_development, key_dir) -> None:
    """Verify FILE's signature: exit 0 if valid, trusted and covering every byte, 1 if not, 2 on usage errors.

    For a certify report also that its signer block names the certificate that signed it. Given a
    report's PDF and its JSON (FILES = REPORT.pdf REPORT.json), also that they are the same report
    (report id, and the JSON's SHA-256 recorded in the signed PDF)."""
    from pathlib import Path

    from certify import signing
    from certify.errors import InputError, VerificationFailed
    from certify.report.verify import verify_pair, verify_report_file

    if len(files) > 2:
        raise click.UsageError("give one signed file, or a report's PDF and its JSON")
    if signature and len(files) > 1:
        raise click.UsageError("--signature goes with one FILE")
    try:
        roots = [signing.load_root(Path(root))] if root else signing.default_roots(Path(key_dir) if key_dir else None)
        if not roots and key_dir:
            raise InputError(f"--key-dir {key_dir}: no {signing.ROOT_CERT} there to trust; give --root CERT")
        checked = []
        for file in files:
            try:
                checked.append(verify_report_file(Path(file), roots, Path(signature) if signature else None,
                                                  allow_development))
            except VerificationFailed as exc:
                click.echo(f"INVALID: {file}: {exc}", err=True)
                sys.exit(1)
        for result in checked:
            v = result.verification
            click.echo(f"VALID: {result.path}: signed by {v.signer}; {v.reason}"
                       + ("; the report's signer block names this certificate" if result.kind != "file" else ""))
            if v.development:
                click.echo(f"WARNING: {result.path}: signed with a DEVELOPMENT key: not for submission "
                           "(accepted: --allow-development)", err=True)
        if len(checked) == 2:
            try:
                report_id = verify_pair(*checked)
            except VerificationFailed as exc:
                click.echo(f"INVALID: {exc}", err=True)
                sys.exit(1)
            click.echo(f"SAME REPORT: {files[0]} and {files[1]} are report {report_id}")
    except InputError as exc:
        raise CertifyError(str(exc)) from exc


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
@click.option("--low", type=DRAW_BOUND, default=None, help="smallest value of an ints file")
@click.option("--high", type=DRAW_BOUND, default=None, help="largest value of an ints file")
@click.option("--profile", type=click.Choice(["quick", "standard", "lab", "cards", "bits"]), default="standard",
              show_default=True, help="how much data each battery looks at (see certify.stats.battery.PROFILES)")
@click.option("--bits", type=click_number(8, 10**9, integer=True), default=None, help="bits per SP 800-22 sequence [profile: 1,000,000]")
@click.option("--sequences", type=click_number(0, 10**5, integer=True), default=None, help="SP 800-22 sequences [profile: 10]")
@click.option("--decks", type=click_number(0, 10**8, integer=True), default=None,
              help="deals for the card battery [profile; a decks file: all of it; a bit file: 0]")
@click.option("--small-decks", type=click_number(0, 10**8, integer=True), default=None, help="4- and 5-card deals for the permutation test")
@click.option("--draws", type=click_number(0, 10**9, integer=True), default=None,
              help="scaled integers for the draw tests [profile; an ints file: all of it; other files: 0]")
@click.option("--cards-per-deal", type=click.IntRange(5, 52), default=52, show_default=True,
              help="cards per line of a decks file (the first cards of a 52-card deck)")
@click.option("--seed", type=SEED, default=1, show_default=True, help="master seed of the DRBG")
@click.option("--alpha", type=click_alpha(), default=0.01, show_default=True)
@click.option("--jobs", type=WORKERS, default=None, help="threads for the SP 800-22 sequences [2, or 1 on one core]")
@click.option("--reference", type=click.Choice(["exact", "nist-sts"]), default="exact", show_default=True,
              help="SP 800-22 computation: exact probabilities, or what the NIST STS reference code computes "
                   "(its LongestRun and LinearComplexity tables, compound-Poisson OverlappingTemplate)")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, callback=_writable_target,
              help="write every p-value as JSON")
def rng(source_name, file_path, file_format, low, high, profile, bits, sequences, decks, small_decks, draws,
        cards_per_deal, seed, alpha, jobs, reference, json_path) -> None:
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
                                     source_label=label, progress=_stderr_progress(), reference=reference)
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


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--bits-per-symbol", "-k", "bits_per_symbol", type=click.IntRange(1, 8), required=True,
              help="bits in each sample (the low bits of each byte, or of the packed stream)")
@click.option("--iid/--non-iid", "iid", default=False,
              help="the IID track (5.1 permutation and 5.2 tests, then the MCV estimate) or the non-IID track "
                   "(the ten 6.3 estimators) [default: --non-iid]")
@click.option("--packed", is_flag=True, help="FILE holds samples packed as bits, MSB first (not one per byte)")
@click.option("--restart", "restart_path", type=click.Path(dir_okay=False), default=None,
              help="a 1000 x 1000 restart matrix (3.1.4), restart after restart, in FILE's format")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=1, show_default=True,
              help="seed of the permutation shuffles")
@click.option("--permutations", type=click_number(1, 1_000_000, integer=True, why="permutations of the 5.1 tests"), default=10_000, show_default=True,
              help="most permutations of the 5.1 tests")
@click.option("--min-samples", type=click_number(2, 2**31 - 1, integer=True, why="samples the assessment can hold"), default=1_000_000, show_default=True,
              help="refuse a shorter file (90B 3.1.1 asks for 1,000,000 samples)")
@click.option("--truncate-bitstring", is_flag=True, help="assess the first 1,000,000 bits of the bitstring only (the NIST tool's -t)")
@click.option("--reference", type=click.Choice(["exact", "nist-ea"]), default="exact", show_default=True,
              help="chi-square tests (5.2): p-value from their exact permutation null, or from the chi-square "
                   "df rule of the NIST SP800-90B_EntropyAssessment tool (its verdicts; too many false alarms "
                   "for 8-bit data)")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, callback=_writable_target,
              help="write every estimate and intermediate value as JSON")
@click.option("--report", "report_dir", type=click.Path(file_okay=False), default=None, callback=_writable_folder,
              help="also write the signed report (PDF, JSON and its .p7s) into this folder")
@_ISSUED_AT
@_KEY_DIR
@_PASSPHRASE_FILE
@_ALLOW_INSECURE_KEY
def entropy(file, bits_per_symbol, iid, packed, restart_path, seed, permutations, min_samples, truncate_bitstring,
            reference, json_path, report_dir, issued_at, key_dir, passphrase_file, allow_insecure_key) -> None:
    """Assess the min-entropy of a noise source's samples (NIST SP 800-90B).

    Prints every estimator's value and intermediate figures, H_original, H_bitstring, the assessed
    min-entropy per sample and the 4.4 health-test cutoffs it implies. Exit 0 when assessed,
    1 when the IID tests reject --iid or the restart tests fail, 2 on a usage or input error
    (nothing is written then)."""
    from certify.stats.battery import write_json_atomic
    from certify.stats.sp800_90b.assessment import assess_file
    from certify.stats.sp800_90b.samples import EntropyInputError

    key = _entropy_report_key(file, report_dir, issued_at, key_dir, passphrase_file, allow_insecure_key)
    try:
        result = assess_file(file, bits_per_symbol, iid=bool(iid), packed=packed, restart_path=restart_path,
                             seed=seed, permutations=permutations, min_samples=min_samples,
                             truncate_bitstring=truncate_bitstring, reference=reference)
    except EntropyInputError as exc:
        raise CertifyError(str(exc)) from exc
    _print_entropy(result)
    if json_path:
        try:
            write_json_atomic(json_path, result)
        except OSError as exc:
            raise CertifyError(f"cannot write {json_path}: {exc}") from exc
        click.echo(f"wrote {json_path}")
    if report_dir:
        from certify.report import ReportDataError, write_report
        from certify.stats.sp800_90b.assessment import report_basename, report_input

        try:
            paths = write_report(report_input(result, issued_at), report_dir, report_basename(file), key)
        except (ReportDataError, OSError) as exc:
            raise CertifyError(f"cannot write the report into {report_dir}: {_os_reason(exc) if isinstance(exc, OSError) else exc}") from exc
        for path in paths.values():
            click.echo(f"wrote {path}")
    if result["verdict"] != "pass":
        sys.exit(1)


def _entropy_report_key(file, report_dir, issued_at, key_dir, passphrase_file, allow_insecure_key):
    """For --report: refuse the report's paths and load the signing key before the assessment
    (minutes), as ``certify run`` does; None without --report."""
    if not report_dir:
        return None
    from pathlib import Path

    from certify import signing
    from certify.atomic import OutputPathError, check_output_path
    from certify.report import report_paths
    from certify.stats.sp800_90b.assessment import report_basename

    try:
        for path in report_paths(report_dir, report_basename(file), signed=True).values():
            check_output_path(path)
        if issued_at is None:
            from certify.validate import source_date_epoch

            source_date_epoch()
        key = signing.load_signing_key(Path(key_dir) if key_dir else None, _passphrase_source(passphrase_file),
                                       allow_insecure=allow_insecure_key)
    except (signing.SigningError, OutputPathError) as exc:
        raise CertifyError(str(exc)) from exc
    _warn_about_key(key)
    if key.development:
        click.echo(f"signing with the DEVELOPMENT key in {key.directory} (not for submission)", err=True)
    return key


def _print_entropy(result) -> None:
    from rich.console import Console
    from rich.table import Table

    def f(x):
        return "-" if x is None else (f"{x:.6f}" if isinstance(x, float) else str(x))

    console = Console()
    if console.width < 132:
        console = Console(width=132)
    k = result["bits_per_symbol"]
    table = Table(title=f"SP 800-90B {result['track']} track: {result['file']} ({result['samples']:,} samples, "
                        f"{k} bit(s), {result['alphabet_size']} values)")
    for column in ("estimator", "section", "data", "min-entropy", "intermediate values"):
        table.add_column(column, overflow="fold")
    for data, estimates in (("literal", result["literal"]), ("bitstring", result["bitstring"])):
        for e in estimates:
            shown = ", ".join(f"{key} = {f(value)}" for key, value in e["details"].items()
                              if not isinstance(value, (list, dict)))
            table.add_row(e["name"], e["section"], data, f(e["min_entropy"]), shown or e["note"])
    console.print(table)
    console.print(f"reference mode: {result.get('reference', 'exact')} ({result.get('reference_rules', '')})")
    for test in result.get("tests", []):
        status = "pass" if test["passed"] else "[bold red]FAIL[/]"
        d = test["details"]
        if test["name"] == "Permutation tests":
            extra = f"{d['permutations_run']} permutations (seed {d['seed']})"
            if d["failing"]:
                extra += "; failing: " + ", ".join(d["failing"])
        else:
            extra = ", ".join(f"{key} = {f(v)}" for key, v in d.items())
        console.print(f"{test['name']} ({test['section']}): {status}  {extra}")
    console.print(f"H_original: {f(result['H_original'])}")
    if result["H_bitstring"] is not None:
        console.print(f"H_bitstring: {f(result['H_bitstring'])}")
        console.print(f"min(H_original, {k} X H_bitstring): {f(result['min_entropy'])}")
    if "restart" in result:
        r = result["restart"]
        s = r["sanity_check"]
        console.print(f"restart sanity check (3.1.4.3): {'pass' if s['passed'] else '[bold red]FAIL[/]'}  "
                      f"X_max = {s['X_max']}, cutoff {s['cutoff']} (alpha {s['alpha']:.3g} per row/column; "
                      f"the document's binomial cutoff: {s.get('document_cutoff', '-')})")
        v = r["validation"]
        if v["passed"] is not None:
            console.print(f"restart validation (3.1.4.2): {'pass' if v['passed'] else '[bold red]FAIL[/]'}  "
                          f"H_r = {f(v['H_r'])}, H_c = {f(v['H_c'])}, H_I = {f(r['H_I'])}")
    if result["verdict"] == "pass":
        console.print(f"[bold green]assessed min-entropy: {result['assessed_min_entropy']:.6f} bits per sample[/]")
        for h in result["health_tests"]:
            console.print(f"  health tests at alpha {h['alpha']}: repetition count cutoff {h['rct_cutoff']}, "
                          f"adaptive proportion cutoff {h['apt_cutoff']} in {h['apt_window']}")
    else:
        console.print("[bold red]FAIL[/]: " + "; ".join(result["reasons"]))


def _stderr_progress():
    """Progress lines on stderr when it is a terminal (never mixed into piped output)."""
    if not sys.stderr.isatty():
        return None
    return lambda message: click.echo(f"  {message}", err=True)


def _print_rng_table(result) -> None:
    from rich.table import Table

    from certify.console import output_console

    from certify.stats.battery import summary_rows

    def p(x):
        return "-" if x is None else f"{x:.3g}"

    profile = result["profile"]
    table = Table(title=f"RNG battery: {result['source']}",
                  caption=f"alpha {result['alpha']}; SP 800-22 computed: {result.get('sp800_22_reference', 'exact')}; "
                          "pass: sequences passing in the worst p-value series; NIST 4.2: "
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
    console = output_console()
    console.print(table)
    rows = summary_rows(result)
    skipped = [f"{row['battery']} {row['test']}" for row in rows if row["verdict"] == "n/a"]
    if skipped:  # a PASS over fewer tests than asked for must not read as a full pass
        console.print(f"not applicable (sample too small for the test, or no data of its kind): {len(skipped)} of "
                      f"{len(rows)} tests: {', '.join(skipped)}")
    if result["sp800_22_skipped"]:
        console.print(f"SP 800-22 not run: {result['sp800_22_skipped']}")
    for line in result.get("tested", ()):
        console.print(f"tested {line}", markup=False)
    if not result["family"]["passed"]:  # the confirmatory rule's two stages (certify.stats.multiple)
        console.print(f"confirmation: {result['confirmation']['summary']}")
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
        click.echo(f"ok  {game.name:<28} {game.title}  [{'; '.join(game.source.documents)}]")


@cli.command("run")
@click.argument("spec")
@click.option("--profile", type=click.Choice(["quick", "lab"]), default="quick", show_default=True,
              help="quick: minutes, CI-size samples; lab: lab sample sizes.")
@click.option("--seed", type=SEED, default=None,
              help="Master seed (default: a fresh random seed, printed and committed in the report).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports", show_default=True,
              callback=_writable_folder)
@click.option("--workers", type=WORKERS, default=None, help="Local worker processes [all cores].")
@_ISSUED_AT
@_KEY_DIR
@_PASSPHRASE_FILE
@_ALLOW_INSECURE_KEY
@_NO_CACHE
@click.option("--procedures", "procedures", type=click.Path(file_okay=False), default=None,
              help="Folder of procedure fixtures naming SPEC [the project's fixtures/procedures]; for a game "
                   "the project does not ship.")
def run_command(spec, profile, seed, out_dir, workers, issued_at, key_dir, passphrase_file,
                allow_insecure_key, no_cache, procedures) -> None:
    """Certify SPEC: RNG batteries, PAR sheet, simulation, procedures; write the signed report.

    The PAR sheet is read from the PAR-sheet cache when a checked entry exists (the report says so,
    with the entry's digest); --no-cache and --profile lab compute it.
    Writes OUT/<game>-<spec version>.pdf, .json and .json.p7s. Exit 0 when the verdict is PASS,
    1 when it is FAIL or INCOMPLETE, 2 on a usage or input error (no report is written then).
    """
    import os
    from pathlib import Path

    from certify import signing
    from certify.atomic import OutputPathError, check_output_path
    from certify.report import ReportDataError, report_paths
    from certify.run import PROFILES, preflight, procedures_folder, report_basename, run
    from certify.spec import SpecError, load_spec, resolve_spec_path

    def progress(message: str) -> None:
        click.echo(message, err=True)

    try:
        game = load_spec(spec)  # a bad spec fails before a development key is created
        for path in report_paths(out_dir, report_basename(game), signed=True).values():  # before the run
            check_output_path(path)
        procedures_folder(procedures)  # a folder that is not there: before the minutes of work
        preflight(resolve_spec_path(spec), PROFILES[profile], issued_at)  # so do pays the kernels cannot hold
        key = signing.load_signing_key(Path(key_dir) if key_dir else None, _passphrase_source(passphrase_file),
                                       allow_insecure=allow_insecure_key)
        _warn_about_key(key)
        if key.development:
            progress(f"signing with the DEVELOPMENT key in {key.directory} (not for submission)")
        outcome = run(spec, profile, seed, out_dir, signing_key=key, workers=workers, issued_at=issued_at,
                      progress=progress, use_cache=not no_cache, procedures=procedures)
    except (signing.SigningError, SpecError, ReportDataError, OutputPathError) as exc:
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


@cli.command("audit")
@click.argument("logs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--spec", required=True, help="The spec the rounds were played under (name in specs/ or a path).")
@click.option("--alpha", type=click_alpha(), default=0.01, show_default=True,
              help="Family level of the statistical tests (Holm-Bonferroni).")
@click.option("--sample", type=click_number(1000, 10**8, integer=True, why="rounds the card battery holds"),
              default=1_000_000, show_default=True,
              help="Rounds (and deck orders) the card battery keeps in memory; the tallies take every round.")
@click.option("--jobs", type=WORKERS, default=None,
              help="Processes that read and re-settle the rounds (the result is the same) [a columnar log: 2, "
                   "or 1 on one core; JSON Lines: 1, where more does not pay].")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, callback=_writable_target,
              help="Write the whole audit (every finding class, test and file) as JSON.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False), default=None, callback=_writable_folder,
              help="Write a signed PDF + JSON audit report into this folder.")
@_ISSUED_AT
@_KEY_DIR
@_PASSPHRASE_FILE
@_ALLOW_INSECURE_KEY
@_NO_CACHE
def audit_command(logs, spec, alpha, sample, jobs, json_path, report_dir, issued_at, key_dir, passphrase_file,
                  allow_insecure_key, no_cache) -> None:
    """Audit round logs (JSON Lines, .gz read transparently; docs/round-log.md) of SPEC: integrity,
    every round re-settled by the rules, fairness of the cards dealt, outcomes and RTP against the
    PAR sheet where the log declares the spec strategy.

    Exit 0 when everything passes, 1 on any finding or failed test, 2 when a log cannot be read
    (file:line named; nothing is written then)."""
    from certify.audit.cli import run_audit

    code = run_audit(logs, spec, alpha=alpha, sample=sample, jobs=jobs, json_path=json_path, report_dir=report_dir,
                     issued_at=issued_at, key_dir=key_dir, passphrase_file=passphrase_file,
                     allow_insecure_key=allow_insecure_key, no_cache=no_cache,
                     passphrase_source=_passphrase_source, warn_about_key=_warn_about_key)
    if code:
        sys.exit(code)


@cli.command("drive")
@click.option("--engine", "command", required=True,
              help="The engine's command line; it speaks the certify-drive/1 protocol (docs/round-log.md).")
@click.option("--spec", required=True, help="The spec the engine plays (name in specs/ or a path).")
@click.option("--rounds", type=click_number(1, 10**9, integer=True), required=True, help="Rounds to play.")
@click.option("--seed", type=click_number(0, 2**63 - 1, integer=True), default=0, show_default=True,
              help="Seed of the harness's wagers and random decisions.")
@click.option("--play", type=click.Choice(["spec", "random"]), default="spec", show_default=True,
              help="Answer decisions by the spec's strategy (outcomes then tested against the PAR sheet) or by "
                   "a seeded random legal choice (every branch played).")
@click.option("--seats", type=click_number(1, 16, integer=True), default=1, show_default=True,
              help="Seats the harness plays (at most the spec's).")
@click.option("--timeout", type=click_number(0.1, 3600, why="seconds one round may take"), default=10.0,
              show_default=True, help="Seconds the engine may take for one round.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default="drive.jsonl", show_default=True,
              callback=_writable_target, help="Where the round log is written (only when every round completed).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, callback=_writable_target,
              help="Write the audit of the log as JSON.")
@_NO_CACHE
def drive_command(command, spec, rounds, seed, play, seats, timeout, log_path, json_path, no_cache) -> None:
    """Drive an engine the suite did not write: place wagers, answer its decisions, log every round,
    then audit the log (certify audit).

    Exit 0 when the audit passes, 1 when the engine crashes, hangs, breaks the protocol or lies
    (the round is named; no log is written) or the audit finds anything, 2 on a usage error."""
    from certify.audit.cli import run_drive

    code = run_drive(command, spec, rounds=rounds, seed=seed, play=play, seats=seats, timeout=timeout,
                     log_path=log_path, json_path=json_path, no_cache=no_cache)
    if code:
        sys.exit(code)


def main() -> None:
    cli(prog_name="certify")


if __name__ == "__main__":
    sys.exit(main())
