#!/usr/bin/env python3
"""Runs the examples of the documentation as written, so that an example that drifts from the code fails.

    run_snippets.py BUILD_DIR VENV_PYTHON [MARKDOWN ...] [--keep DIR] [--timeout S] [--only TEXT]

BUILD_DIR is a configured and built release tree (build/release), VENV_PYTHON the Python of the
project's virtual environment with the package installed (.venv/bin/python). Without MARKDOWN
files it reads README.md and docs/*.md. It prints one line per example, `file:line language
status`, with the reason of a skip or the output of a failure, then a summary, and exits 1 when
an example failed (2 for a usage error).

What is run (tests/docs/README.md says the same for writers of documentation):

- Fenced blocks tagged `sh`/`bash`, `cpp`/`c++` and `python`/`py`. Blocks tagged with any other
  language (`text` for output, formulas and synopses; `cmake`) are not run. A fence without a
  language is an error: tag it, so that no command block escapes the test.
- Each example runs in a fresh scratch folder that looks like the repository root: its entries
  are symbolic links to the repository's, except `build/`, a folder of its own whose `release`
  links to BUILD_DIR, and `scripts/` and `CMakePresets.json`, which are left out: the project's
  scripts and presets configure, build and test BUILD_DIR itself (an example that runs them is
  skipped). Commands written for the repository root (`build/release/tools/cli/...`,
  `tests/install/...`) work, and what an example writes stays in the scratch folder. An example
  that configures BUILD_DIR from the scratch folder fails (BUILD_DIR's CMakeCache.txt then names
  it), and the runner says how to configure it again. HOME is a
  folder of the scratch folder too (`~/aclnn_bce` as an install prefix), and PATH starts with
  VENV_PYTHON's folder (`python`, `aclnn-bce`) and BUILD_DIR/tools/cli (`aclnn_bce_cli`).
- sh: the block is run by bash after `set -e -o pipefail -x`: every command must succeed (and a
  failure's output shows the commands that ran).
- python: the block is run by VENV_PYTHON.
- cpp: a block with `int main(` is a whole program; it is compiled (c++ -std=c++17 -Wall -Wextra
  -Werror, the repository's include/, linked to BUILD_DIR's libaclnn_bce.so) and run. Any other
  block is a fragment and needs a harness (below): a program in tests/docs/harness/ whose line
  `// SNIPPET` is replaced by the fragment (the fragment's `#include` lines go to the top). The
  harness declares the variables the fragment uses and checks the results after it.

Directives: HTML comments on the lines right above a fence (invisible in the rendered page):

    <!-- snippet: name NAME -->           names the block, for `continues`
    <!-- snippet: continues NAME -->      the block goes on from the named earlier block of the file:
                                          it runs as that block's code (and that block's own
                                          predecessors') followed by its own, in one program
    <!-- snippet: harness NAME -->        a C++ fragment runs inside tests/docs/harness/NAME.cpp
    <!-- snippet: skip (REASON) -->       not run; the reason is printed (required)
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[2]
HARNESS_DIR = Path(__file__).resolve().parent / "harness"
HARNESS_MARKER = "// SNIPPET"

LANGUAGES = {"sh": "sh", "bash": "sh", "cpp": "cpp", "c++": "cpp", "python": "python", "py": "python"}
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
DIRECTIVE = re.compile(r"^\s*<!--\s*snippet:\s*(?P<body>.*?)\s*-->\s*$")
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
OUTPUT_TAIL_LINES = 40  # of a failure's output: enough for a compiler error or a traceback
LABEL_WIDTH = 24  # file:line, so that the statuses line up
# Left out of the scratch folders (see the module's doc): build/ is made apart; scripts/ and the
# presets would configure and build BUILD_DIR with the scratch folder as its source.
NOT_MIRRORED = (".git", "build", "scripts", "CMakePresets.json")


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    language: str  # the fence's info word, as written
    code: str
    directives: List[str] = field(default_factory=list)
    name: Optional[str] = None
    continues: Optional[str] = None
    harness: Optional[str] = None
    skip: Optional[str] = None
    error: Optional[str] = None  # a malformed block or directive: the block fails with this

    @property
    def kind(self) -> Optional[str]:
        return LANGUAGES.get(self.language.lower())

    def where(self) -> str:
        try:
            shown = self.path.resolve().relative_to(REPO)
        except ValueError:
            shown = self.path
        return f"{shown}:{self.line}"


def parse_markdown(path: Path) -> List[Block]:
    """The fenced blocks of a markdown file, with the directives above each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: List[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group("fence"), m.group("info").strip()
        start = i
        body: List[str] = []
        i += 1
        closing = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        while i < len(lines) and not closing.match(lines[i]):
            body.append(lines[i])
            i += 1
        i += 1  # past the closing fence (or the end of the file)
        indent = len(m.group("indent"))
        code = "\n".join(l[indent:] if l[:indent].strip() == "" else l for l in body) + "\n"
        block = Block(path, start + 1, info.split()[0] if info else "", code)
        if not info:
            block.error = ("fence without a language: tag it sh, cpp or python to run it, or text (or another "
                           "language) for what is not run")
        j = start - 1
        while j >= 0 and DIRECTIVE.match(lines[j]):
            block.directives.insert(0, DIRECTIVE.match(lines[j]).group("body"))
            j -= 1
        apply_directives(block)
        blocks.append(block)
    return blocks


def apply_directives(block: Block) -> None:
    for text in block.directives:
        word, _, rest = text.partition(" ")
        rest = rest.strip()
        if word == "skip":
            m = re.fullmatch(r"\((.+)\)", rest)
            if not m or not m.group(1).strip():
                block.error = f"'snippet: {text}': a skip needs its reason, as 'skip (why)'"
                return
            block.skip = m.group(1).strip()
        elif word in ("name", "continues", "harness"):
            if not NAME.match(rest):
                block.error = f"'snippet: {text}': {word} takes one name (letters, digits, '_', '.', '-')"
                return
            setattr(block, word, rest)
        else:
            block.error = f"'snippet: {text}': unknown directive (name, continues, harness, skip (reason))"
            return
    if block.directives and block.kind is None and block.error is None:
        block.error = f"snippet directives on a '{block.language}' block, which is not run"


def program_of(block: Block, named: Dict[str, Block]) -> Tuple[Optional[str], Optional[str]]:
    """The code the block runs: its predecessors' (`continues`) and its own; or an error."""
    parts = [block.code]
    seen = {id(block)}
    current = block
    while current.continues is not None:
        parent = named.get(current.continues)
        if parent is None:
            return None, f"continues '{current.continues}', which no earlier block of {block.path.name} is named"
        if id(parent) in seen:
            return None, f"continues '{current.continues}' in a circle"
        if parent.kind != block.kind:
            return None, f"continues '{current.continues}', a {parent.language} block"
        seen.add(id(parent))
        parts.insert(0, parent.code)
        current = parent
    return "".join(parts), None


class Runner:
    def __init__(self, build_dir: Path, python: Path, scratch: Path, timeout: float, keep: bool):
        self.build_dir = build_dir
        self.keep = keep
        self.python = python
        self.scratch = scratch
        self.timeout = timeout
        self.count = 0
        self._library: Optional[Path] = None

    def library(self) -> Path:
        if self._library is None:
            found = sorted(p for p in self.build_dir.rglob("libaclnn_bce.so") if "CMakeFiles" not in p.parts)
            if not found:
                raise RuntimeError(f"no libaclnn_bce.so under {self.build_dir}: build the release tree first")
            self._library = found[0]
        return self._library

    def workdir(self, block: Block) -> Path:
        """A scratch folder that looks like the repository root (see the module's doc)."""
        self.count += 1
        slug = re.sub(r"[^A-Za-z0-9]+", "_", f"{block.path.stem}_{block.line}")
        work = self.scratch / f"{self.count:02d}_{slug}"
        work.mkdir(parents=True)
        for entry in REPO.iterdir():
            if entry.name in NOT_MIRRORED:
                continue
            (work / entry.name).symlink_to(entry)
        (work / "build").mkdir()
        (work / "build" / "release").symlink_to(self.build_dir)
        (work / "home").mkdir()
        return work

    def environment(self, work: Path) -> Dict[str, str]:
        env = dict(os.environ)
        env["HOME"] = str(work / "home")
        path = [str(self.python.parent), str(self.build_dir / "tools" / "cli"), env.get("PATH", "")]
        env["PATH"] = os.pathsep.join(path)
        env.pop("PYTHONPATH", None)
        return env

    def run(self, argv: List[str], work: Path, env: Dict[str, str], log: List[str]) -> bool:
        """Runs @p argv in its own process group, which is killed on a timeout or when the runner
        stops (an example's background commands do not outlive it)."""
        log.append("$ " + " ".join(argv))
        child = subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            output, _ = child.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            output, _ = child.communicate()
            log.append(output.decode(errors="replace"))
            log.append(f"timed out after {self.timeout:g} s")
            return False
        finally:
            if child.poll() is None:  # the runner is stopping (an exception, SIGTERM)
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
        log.append(output.decode(errors="replace"))
        if child.returncode != 0:
            log.append(f"exit status {child.returncode}")
        return child.returncode == 0

    def run_block(self, block: Block, program: str, log: List[str]) -> bool:
        work = self.workdir(block)
        ok = self.run_in(block, program, work, log)
        cache = self.build_dir / "CMakeCache.txt"
        if str(work) in cache.read_text(errors="replace"):
            log.append(f"the example configured {self.build_dir} with its scratch folder as the source: configure it "
                       f"again from the repository (cmake --preset release), and skip such an example")
            return False
        return ok

    def run_in(self, block: Block, program: str, work: Path, log: List[str]) -> bool:
        env = self.environment(work)
        if self.keep:
            log.append(f"(scratch folder {work})")
        if block.kind == "sh":
            # -x: a failure's output shows the commands that ran, the failing one last
            (work / "snippet.sh").write_text("set -e -o pipefail -x\n" + program)
            return self.run(["bash", "snippet.sh"], work, env, log)
        if block.kind == "python":
            (work / "snippet.py").write_text(program)
            return self.run([str(self.python), "snippet.py"], work, env, log)
        source = self.cpp_source(block, program)
        (work / "snippet.cpp").write_text(source)
        library = self.library()
        compiler = os.environ.get("CXX", "c++")
        compiled = self.run([compiler, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{REPO / 'include'}",
                             f"-I{HARNESS_DIR}", "snippet.cpp", "-o", "snippet", f"-L{library.parent}", "-laclnn_bce",
                             f"-Wl,-rpath,{library.parent}"], work, env, log)
        return compiled and self.run(["./snippet"], work, env, log)

    @staticmethod
    def cpp_source(block: Block, program: str) -> str:
        if block.harness is None:
            return program
        harness = (HARNESS_DIR / f"{block.harness}.cpp").read_text()
        includes = [l for l in program.splitlines() if l.lstrip().startswith("#include")]
        body = [l for l in program.splitlines() if not l.lstrip().startswith("#include")]
        lines = harness.splitlines()
        at = next(i for i, l in enumerate(lines) if l.strip() == HARNESS_MARKER)
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        where = f"// from {block.where()}"
        fragment = [indent + where] + [indent + l if l else l for l in body]
        return "\n".join(includes + lines[:at] + fragment + lines[at + 1:]) + "\n"


def check(block: Block, named: Dict[str, Block]) -> Tuple[Optional[str], Optional[str]]:
    """(program, None) for a block to run, or (None, why it fails)."""
    if block.error is not None:
        return None, block.error
    program, error = program_of(block, named)
    if error is not None:
        return None, error
    if block.kind == "cpp":
        if block.harness is not None:
            harness = HARNESS_DIR / f"{block.harness}.cpp"
            if not harness.is_file():
                return None, f"harness '{block.harness}': no {harness}"
            if HARNESS_MARKER not in harness.read_text():
                return None, f"harness '{block.harness}': no line '{HARNESS_MARKER}' in {harness}"
        elif "int main(" not in program:
            return None, ("a C++ fragment (no 'int main(') needs a harness: <!-- snippet: harness NAME --> "
                          "with tests/docs/harness/NAME.cpp")
    elif block.harness is not None:
        return None, "a harness is for C++ fragments only"
    return program, None


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_dir", type=Path, help="the release build folder, e.g. build/release")
    parser.add_argument("python", type=Path, help="the virtual environment's python, e.g. .venv/bin/python")
    parser.add_argument("markdown", nargs="*", type=Path, help="files to read (default: README.md, docs/*.md)")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="make the scratch folders under DIR and keep them")
    parser.add_argument("--timeout", type=float, default=600, metavar="S", help="seconds per example (600)")
    parser.add_argument("--only", metavar="TEXT", help="run only the examples whose file:line contains TEXT")
    args = parser.parse_args(argv)

    build_dir = args.build_dir.resolve()
    if not (build_dir / "CMakeCache.txt").is_file():
        parser.error(f"{args.build_dir} is not a configured build folder (no CMakeCache.txt)")
    # The venv's python itself, not the interpreter it links to: its folder holds aclnn-bce.
    python = Path(os.path.abspath(args.python))
    if not python.is_file():
        parser.error(f"{args.python}: no such python")
    files = args.markdown or [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix="doc_snippets.", dir=args.keep)).resolve()
    else:
        scratch = Path(tempfile.mkdtemp(prefix="doc_snippets.")).resolve()
    runner = Runner(build_dir, python, scratch, args.timeout, keep=args.keep is not None)
    # SIGTERM ends the runner as Ctrl-C does: the running example is killed, the scratch removed.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    not_run: Dict[str, int] = {}
    try:
        for path in files:
            named: Dict[str, Block] = {}
            for block in parse_markdown(Path(path)):
                if block.name is not None:
                    named[block.name] = block  # before any error: a later block may name it
                if block.kind is None and block.error is None:
                    not_run[block.language] = not_run.get(block.language, 0) + 1
                    continue
                if args.only and args.only not in block.where():
                    continue
                label = f"{block.where():<{LABEL_WIDTH}} {block.language:<7}"
                if block.skip is not None and block.error is None:
                    counts["skipped"] += 1
                    print(f"{label} skipped ({block.skip})", flush=True)
                    continue
                program, error = check(block, named)
                if error is not None:
                    counts["failed"] += 1
                    print(f"{label} failed: {error}", flush=True)
                    continue
                log: List[str] = []
                started = time.monotonic()
                ok = runner.run_block(block, program, log)
                seconds = time.monotonic() - started
                how = []
                if block.continues:
                    how.append(f"continues {block.continues}")
                if block.harness:
                    how.append(f"harness {block.harness}")
                how.append(f"{seconds:.1f} s")
                status = "passed" if ok else "failed"
                counts[status] += 1
                print(f"{label} {status} ({', '.join(how)})", flush=True)
                if not ok:
                    lines = [l for l in "\n".join(log).splitlines() if l.strip()]
                    tail = lines[-OUTPUT_TAIL_LINES:]
                    print("\n".join("    | " + l for l in tail), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    others = ", ".join(f"{k} {v}" for k, v in sorted(not_run.items()))
    print(f"examples: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
          + (f"; blocks not run by language: {others}" if others else ""))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
