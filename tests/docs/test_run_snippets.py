#!/usr/bin/env python3
"""The documentation test's own test: run_snippets.py passes what works and fails what is broken.

    test_run_snippets.py [BUILD_DIR VENV_PYTHON]      (or: pytest tests/docs)

Runs the runner on fixtures/good.md (each block passes or is skipped, exit 0) and on
fixtures/broken.md (each block is broken in one way and must be reported failed for that reason,
exit 1). The same arguments as run_snippets.py; by default (and under pytest) build/release and
.venv/bin/python of this repository.
"""
import subprocess
import sys
import unittest
from pathlib import Path
from typing import List, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RUNNER = HERE / "run_snippets.py"
ARGS: List[str] = [str(REPO / "build" / "release"), str(REPO / ".venv" / "bin" / "python")]


def run_fixture(name: str) -> Tuple[int, List[Tuple[str, str]], str]:
    """The runner's exit status, its report per block as (status line, status line and output),
    and its whole output."""
    done = subprocess.run([sys.executable, str(RUNNER), *ARGS, str(HERE / "fixtures" / name)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    blocks: List[Tuple[str, str]] = []
    for line in done.stdout.splitlines():
        if line.startswith(f"tests/docs/fixtures/{name}:"):
            blocks.append((line, line))
        elif line.startswith("    | ") and blocks:
            blocks[-1] = (blocks[-1][0], blocks[-1][1] + "\n" + line)
    return done.returncode, blocks, done.stdout


class GoodExamples(unittest.TestCase):
    def test_every_block_passes_or_is_skipped_with_its_reason(self):
        code, blocks, output = run_fixture("good.md")
        self.assertEqual(code, 0, output)
        statuses = [line.split()[2] for line, _ in blocks]
        self.assertEqual(statuses, ["passed"] * 7 + ["skipped"], output)
        self.assertIn("skipped (a fixture of a skip: never run)", blocks[-1][0])
        self.assertIn("(continues greet,", blocks[1][0])
        self.assertIn("harness backward", blocks[5][0])
        self.assertIn("examples: 7 passed, 0 failed, 1 skipped; blocks not run by language: cmake 1, text 1", output)


class BrokenExamples(unittest.TestCase):
    # The reason each block of fixtures/broken.md must fail for, in the file's order.
    EXPECTED = [
        "exit status 1",
        "NameError: name 'batches' is not defined",
        "continues 'nowhere', which no earlier block of broken.md is named",
        "error:",  # the compiler's, on the call with an argument missing
        "a C++ fragment (no 'int main(') needs a harness",
        "fence without a language",
        "a skip needs its reason",
        "unknown directive",
        "harness: out[0] = ",  # the harness's own check of the result
        "exit status 2",
    ]

    def test_each_broken_block_fails_for_its_reason_and_the_run_fails(self):
        code, blocks, output = run_fixture("broken.md")
        self.assertEqual(code, 1, output)
        self.assertEqual(len(blocks), len(self.EXPECTED), output)
        for (line, text), reason in zip(blocks, self.EXPECTED):
            self.assertIn(" failed", line, text)
            self.assertIn(reason, text)
        self.assertIn(f"examples: 0 passed, {len(self.EXPECTED)} failed, 0 skipped", output)


if __name__ == "__main__":
    if len(sys.argv) >= 3:
        ARGS = sys.argv[1:3]
    unittest.main(argv=[sys.argv[0], *sys.argv[3:]], verbosity=2)
