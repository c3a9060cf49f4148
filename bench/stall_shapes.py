"""Messages built to be slow, at full size, scored through the real CLI: each must stay within the limits on time and memory.

    python bench/stall_shapes.py DIR                 # write the messages to DIR
    python bench/stall_shapes.py DIR --run MODEL     # and time `spamnb classify` on each
    python bench/stall_shapes.py DIR --run MODEL --shape uuencode   # only shapes whose name holds a word

Each shape is one that made a stage quadratic or slow before (the first five
are the issue's), at a size below the 10 MiB cap.  --run prints a Markdown
table of `/usr/bin/time -f "%e %U %S %M" spamnb classify --model MODEL FILE`:
wall seconds, CPU seconds (user and system: what the process itself cost,
which other work on a shared machine does not inflate as much) and peak
memory, with the verdict.  RELIABILITY.md records it.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from pathlib import Path

PLAIN = b"Subject: x\nContent-Type: text/plain; charset=utf-8\n\n"
HTML = b"Subject: x\nContent-Type: text/html; charset=utf-8\n\n"
UUENCODED = b"Subject: x\nContent-Type: text/plain\nContent-Transfer-Encoding: x-uuencode\n\nbegin 644 f.txt\n"


def _random_han(count: int) -> bytes:
    rng = random.Random(1)
    return "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(count)).encode()


SHAPES = {
    # The five.
    "one Han character repeated, 2 M chars (发发发...)": lambda: PLAIN + "发".encode() * 2_000_000,
    "HTML numeric character references, 1 M (&#x5f97;)": lambda: HTML + b"&#x5f97;" * 1_000_000,
    "U+FDFA, 1 M (NFKC: 18 chars each)": lambda: PLAIN + "\ufdfa".encode() * 1_000_000,
    "5 x (letter + 200 k combining marks of two classes)":
        lambda: PLAIN + ("a" + "\u0301\u0316" * 100_000 + " ").encode() * 5,
    "Subject of 200,000 RFC 2047 encoded words":
        lambda: b"Subject: " + b" ".join([b"=?utf-8?B?5Y+R?="] * 200_000) + b"\n\nbody\n",
    # Added: found by reading the parsers, the scaling tests and the time-per-byte search.
    "5 x (letter + 200 k marks, classes in reverse order)":
        lambda: PLAIN + ("a" + "\u0301" * 100_000 + "\u0316" * 100_000 + " ").encode() * 5,
    "U+0F73, 1 M (decomposes to two mark classes)": lambda: PLAIN + "\u0f73".encode() * 1_000_000,
    "random rare Han characters, 2 M": lambda: PLAIN + _random_han(2_000_000),
    "Subject of 3 M Han characters": lambda: b"Subject: " + "发".encode() * 3_000_000 + b"\n\nbody\n",
    "HTML: unclosed start tags '<x y', 2.5 M": lambda: HTML + b"<x y" * 2_500_000,
    "HTML: '<a' repeated, 5 M": lambda: HTML + b"<a" * 5_000_000,
    "HTML: '<!' repeated, 5 M": lambda: HTML + b"<!" * 5_000_000,
    "HTML: '<![CDATA[' repeated, 1 M": lambda: HTML + b"<![CDATA[" * 1_000_000,
    "a line of 10 M '-'": lambda: PLAIN + b"-" * 10_000_000,
    "'.-a' repeated, 3.3 M": lambda: PLAIN + b".-a" * 3_300_000,
    "'$a.' repeated then an address, 3.3 M": lambda: PLAIN + b"$a." * 3_300_000 + b"@x.com",
    "3 M empty header fields": lambda: b"X:\n" * 3_000_000 + b"\nbody\n",
    "To: 2 M addresses": lambda: b"To: " + b"a@b, " * 2_000_000 + b"\n\nbody\n",
    "To: a group of 1 M members": lambda: b"To: g: " + b"a@b, " * 1_000_000 + b";\n\nbody\n",
    "To: '<!' repeated, 5 M": lambda: b"To: " + b"<!" * 5_000_000 + b"\n\nbody\n",
    "From: 5 M nested comments": lambda: b"From: " + b"(" * 5_000_000 + b"\n\nbody\n",
    "Content-Type with 1.6 M parameters": lambda: b"Content-Type: text/plain" + b"; a=b" * 1_600_000 + b"\n\nx\n",
    "2 M boundary lines in a row":
        lambda: b"Content-Type: multipart/mixed; boundary=b\n\n" + b"--b\n" * 2_000_000 + b"\nbody\n--b--\n",
    "undeclared GB2312, 10 MB": lambda: b"Subject: x\n\n" + "正规发票，".encode("gb2312") * 1_000_000,
    "3.3 M two-letter words (bigrams)": lambda: b"Subject: x\n\n" + b"ab " * 3_300_000,
    # Shapes near the limits (2 s, 500 MB).
    "HTML: a start tag of 1 M attributes, 2 MB": lambda: HTML + b"<a" + b" b" * 1_000_000 + b">",
    "HTML: a closed start tag of 950 k attributes and a link":
        lambda: HTML + b"<a" + b" b" * 950_000 + b" href=http://offers.example/>text",
    "uuencode: 5 M lines of one character": lambda: UUENCODED + b"!\n" * 5_000_000 + b"end\n",
    "uuencode: 3.3 M lines, each with trailing garbage": lambda: UUENCODED + b"`x\n" * 3_300_000 + b"end\n",
    "1 MB of alternating scripts (a发a发...)": lambda: PLAIN + "a发".encode() * 250_000,
    "a boundary of 1 MB": lambda: (b"Subject: x\nContent-Type: multipart/mixed; boundary=" + b"x" * 1_000_000
                                  + b"\n\n--" + b"x" * 1_000_000 + b"\n\nbody\n--" + b"x" * 1_000_000 + b"--\n"),
}


def write(directory: Path, words: list[str] | None = None) -> list[tuple[str, Path]]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for index, (name, make) in enumerate(SHAPES.items()):
        if words and not any(word.lower() in name.lower() for word in words):
            continue
        path = directory / f"shape-{index:02}.eml"
        if not path.exists():
            path.write_bytes(make())
        out.append((name, path))
    return out


def run(model: str, shapes: list[tuple[str, Path]]) -> None:
    spamnb = str(Path(sys.executable).with_name("spamnb"))
    print("| input | size | seconds | CPU seconds | peak memory | verdict |")
    print("|---|---:|---:|---:|---:|---|")
    for name, path in shapes:
        result = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", spamnb, "classify", "--model", model, str(path)],
                                capture_output=True, text=True)
        seconds, user, system, kilobytes = result.stderr.strip().splitlines()[-1].split()
        verdict = result.stdout.split()[0] if result.stdout else f"exit {result.returncode}"
        notes = [line for line in result.stderr.strip().splitlines()[:-1]]
        if notes:
            verdict += " (" + "; ".join(notes) + ")"
        size = path.stat().st_size
        print(f"| {name} | {size / 1e6:.1f} MB | {float(seconds):.2f} | {float(user) + float(system):.2f} "
              f"| {int(kilobytes) / 1024:.0f} MB | {verdict} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("directory", type=Path)
    parser.add_argument("--run", metavar="MODEL")
    parser.add_argument("--shape", action="append", metavar="WORD", help="only shapes whose name holds WORD")
    args = parser.parse_args()
    shapes = write(args.directory, args.shape)
    if args.run:
        run(args.run, shapes)


if __name__ == "__main__":
    main()
