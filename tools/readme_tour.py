"""Refresh the command outputs shown in README.md by running the commands.

README.md marks each shown run with HTML comments::

    <!-- tour: whatif head=40 tail=2 -->
    ```console
    $ ssdco whatif configs/pm9a3-960.toml -c c07
    (output, rewritten by this script)
    ```
    <!-- /tour -->

Every line of a tour block that starts with ``$ `` is a command; everything else in the block is its output,
which this script replaces by a fresh run. ``head=N tail=M`` keep the first N and last M lines of a long
output with a ``...`` line between them; a line longer than the README's limit is cut with ``...``. A command that
exits with a status other than 0 gets a last line ``(exit status N)``.

Files the README asks the reader to write are marked ``<!-- file: NAME -->`` ... ``<!-- /file -->`` around a
fenced block; they are written into the scratch directory the commands run in, next to a link to the
repository's ``configs/``. ``ssdco`` runs the package of this checkout.

    python tools/readme_tour.py                 # rerun every tour and rewrite README.md
    python tools/readme_tour.py whatif sweep    # only these tours
    python tools/readme_tour.py --check         # exit 1 if a rerun changes a block (timings make some differ)
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_LINE_CHARS = 120

TOUR = re.compile(r"<!-- tour: (?P<name>[\w-]+)(?P<options>[^>]*?)\s*-->\n(?P<body>.*?)<!-- /tour -->", re.DOTALL)
FILE = re.compile(r"<!-- file: (?P<name>[\w.-]+)\s*-->\n```[\w-]*\n(?P<text>.*?)```\n<!-- /file -->", re.DOTALL)
FENCE = re.compile(r"(?P<open>```[\w-]*\n)(?P<inner>.*?)(?P<close>```\n?)", re.DOTALL)


@dataclass(frozen=True)
class Tour:
    """One tour block: its name, options, the commands it shows and where it sits in the README."""

    name: str
    head: int | None
    tail: int
    commands: tuple[str, ...]
    start: int
    end: int


def tours(text: str) -> list[Tour]:
    """The tour blocks of a README text, in order."""
    found = []
    for m in TOUR.finditer(text):
        options = dict(re.findall(r"(\w+)=(\d+)", m.group("options")))
        commands = tuple(line[2:] for line in m.group("body").splitlines() if line.startswith("$ "))
        found.append(Tour(name=m.group("name"), head=int(options["head"]) if "head" in options else None,
                          tail=int(options.get("tail", 0)), commands=commands,
                          start=m.start("body"), end=m.end("body")))
    return found


def files(text: str) -> dict[str, str]:
    """The files the README asks the reader to write: name -> content."""
    return {m.group("name"): m.group("text") for m in FILE.finditer(text)}


def ssdco_shim(bin_dir: Path) -> Path:
    """Write an ``ssdco`` command into ``bin_dir`` that runs this checkout's CLI with the current Python."""
    shim = bin_dir / "ssdco"
    code = "import sys; from ssdco.cli import main; sys.exit(main())"
    shim.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c {shlex.quote(code)} \"$@\"\n")
    shim.chmod(0o755)
    return shim


def scratch_environment(workdir: Path, readme_text: str) -> dict[str, str]:
    """Prepare ``workdir`` (configs link, the README's files, an ``ssdco`` command) and return the environment."""
    (workdir / "configs").symlink_to(ROOT / "configs")
    for name, content in files(readme_text).items():
        (workdir / name).write_text(content)
    bin_dir = workdir / ".bin"
    bin_dir.mkdir()
    ssdco_shim(bin_dir)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["COLUMNS"] = str(MAX_LINE_CHARS)
    return env


def run(command: str, workdir: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run one shown command with bash in ``workdir``; return its exit status and its output (stdout, stderr)."""
    done = subprocess.run(["bash", "-c", command], check=False, cwd=workdir, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    return done.returncode, done.stdout


def shorten(output: str, head: int | None, tail: int) -> list[str]:
    """The output's lines as shown: trailing blanks dropped, long lines cut, the middle of long output elided."""
    lines = [line.rstrip() for line in output.rstrip("\n").splitlines()]
    lines = [line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS - 3] + "..." for line in lines]
    if head is not None and len(lines) > head + tail + 1:
        lines = lines[:head] + ["..."] + (lines[-tail:] if tail else [])
    return lines


def render(tour: Tour, results: list[tuple[int, str]]) -> str:
    """The new body of a tour block: a console fence with each command and its (shortened) output."""
    out = ["```console"]
    for command, (status, output) in zip(tour.commands, results):
        out.append(f"$ {command}")
        out.extend(shorten(output, tour.head, tour.tail))
        if status != 0:
            out.append(f"(exit status {status})")
    out.append("```")
    return "\n".join(out) + "\n"


def refresh(text: str, names: set[str] | None = None, log=print) -> str:
    """``text`` with every selected tour block rewritten from a fresh run of its commands."""
    with tempfile.TemporaryDirectory(prefix="ssdco-tour-") as tmp:
        workdir = Path(tmp)
        env = scratch_environment(workdir, text)
        pieces, last = [], 0
        for tour in tours(text):
            if names and tour.name not in names:
                continue
            results = []
            for command in tour.commands:
                log(f"[{tour.name}] $ {command}")
                results.append(run(command, workdir, env))
            pieces.append(text[last:tour.start])
            pieces.append(render(tour, results))
            last = tour.end
        pieces.append(text[last:])
    return "".join(pieces)


def main(argv: list[str] | None = None) -> int:
    """Rewrite README.md's tour blocks (all, or those named); with --check only report whether they change."""
    p = argparse.ArgumentParser(description="Refresh the command outputs shown in README.md.")
    p.add_argument("names", nargs="*", help="tour names to refresh (default: all)")
    p.add_argument("--check", action="store_true", help="do not write; exit 1 if a block would change")
    args = p.parse_args(argv)
    text = README.read_text()
    known = {t.name for t in tours(text)}
    unknown = set(args.names) - known
    if unknown:
        print(f"readme_tour: no tour named {', '.join(sorted(unknown))}; tours: {', '.join(sorted(known))}",
              file=sys.stderr)
        return 2
    new = refresh(text, set(args.names) or None, log=lambda s: print(s, file=sys.stderr))
    if args.check:
        return 0 if new == text else 1
    if new != text:
        sys.path.insert(0, str(ROOT))
        from ssdco.atomic import write_text_atomic

        write_text_atomic(README, new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
