"""List the numbers the chapters' prose states that no run of the reader backs.

A chapter's prose may say what its output shows ("the torch module took about three times that"); unless the
number comes from the reader's own run (a ``{glue}`` role) or an ``assert`` of the chapter checks it, the
reader's output can contradict the text and nothing fails. This script finds the sentences of markdown cells
that state a measured-looking number (a decimal, a percentage, a ratio such as ``3x``, a time or size with its
unit, a number of seeds or runs) and that neither a glue role nor an assert of the same chapter backs (the
number's literal appearing in an ``assert`` line). It is a reading aid, not a judge: a number quoted from a
paper or a committed results file shows up too, and the count is what to bring down.

    python tools/prose_numbers.py            # a count per chapter and the total
    python tools/prose_numbers.py --list     # every sentence, with its chapter and cell
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: A number as a measurement: a decimal, a percentage, a ratio (3x, 1.79x), or a number with a unit.
MEASURED = re.compile(
    r"(?<![\w.])(\d[\d,]*\.\d+|\d+(?:\.\d+)?\s?(?:%|x\b|us\b|µs\b|ms\b|s\b|min\b|MB\b|GB\b|KB\b|bytes\b)"
    r"|(?<![\w.])x(?!86)\d+(?:\.\d+)?"  # x0.82, not x86
    r"|\d+ (?:of|out of) \d+|\d+/\d+)"
)
#: Spans that are not prose: inline code, math, links' targets, glue roles, admonition headers.
NOT_PROSE = re.compile(r"`[^`]*`|\$[^$]*\$|\]\([^)]*\)|\{glue[^}]*\}`[^`]*`|^```.*$", re.MULTILINE)
#: A version number, not a measurement: "torch 2.13", "since 2.6", "CUDA 12.5".
VERSION = re.compile(
    r"(?:torch|TensorFlow|Keras|Python|CUDA|cuDNN|numpy|gymnasium|Ray|ray|onnx\w*|tf2onnx|LiteRT|jupyter-book|"
    r"mujoco|ale-py|version|release|releases|before|since|from|to|and|or|v)\s+\d+(?:\.\d+)+"
)
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(*])")


#: A MyST directive whose body is prose (a verdict's admonition, a note): its fence and options go, its text stays.
DIRECTIVE = re.compile(
    r"```\{(?:admonition|note|tip|warning|important|hint|seealso)\}[^\n]*\n(?::\w+:[^\n]*\n)*(.*?)```", re.DOTALL
)


def prose(markdown: str) -> str:
    """The markdown without code, math, link targets, glue roles, code blocks, headings and tables; the text
    of admonitions, notes and list items stays (a verdict is prose too)."""
    markdown = DIRECTIVE.sub(r"\1", markdown)
    markdown = re.sub(r"```.*?```", " ", markdown, flags=re.DOTALL)
    markdown = NOT_PROSE.sub(" ", markdown)
    lines = [line for line in markdown.splitlines() if not line.lstrip().startswith(("#", "|"))]
    return "\n".join(line.lstrip().removeprefix("- ") for line in lines)  # a list item is prose too


def asserted_literals(cells: list[dict]) -> set[str]:
    """The number literals that appear in the chapter's assert lines (what an assert can be said to back)."""
    found = set()
    for cell in cells:
        if cell["cell_type"] == "code":
            for line in "".join(cell["source"]).splitlines():
                if line.lstrip().startswith("assert"):
                    found |= set(re.findall(r"\d+(?:\.\d+)?", line))
    return found


def unbacked(path: Path) -> list[tuple[int, str]]:
    """(cell index, sentence) of each prose sentence stating a measured-looking number no assert names."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    backed = asserted_literals(cells)
    statements = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown" or "## References" in "".join(cell["source"]):
            continue
        for sentence in SENTENCE.split(" ".join(prose("".join(cell["source"])).split())):
            numbers = [match.group(0) for match in MEASURED.finditer(VERSION.sub(" ", sentence))]
            literals = {n for number in numbers for n in re.findall(r"\d+(?:\.\d+)?", number.replace(",", ""))}
            if numbers and not literals <= backed:
                statements.append((index, sentence))
    return statements


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print every sentence, not only the counts")
    args = parser.parse_args()
    total = 0
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        found = unbacked(path)
        total += len(found)
        print(f"{path.stem:<36} {len(found):>4}")
        if args.list:
            for index, sentence in found:
                print(f"    cell {index}: {sentence}")
    print(f"{'total':<36} {total:>4}")


if __name__ == "__main__":
    main()
