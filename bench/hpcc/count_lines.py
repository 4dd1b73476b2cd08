#!/usr/bin/env python3
"""Counts the lines of each HPC Challenge kernel: hpfrt's examples/hpcc programs against the files of
the reference implementation (the hpcc 1.5.0 source package, `apt-get source hpcc`), without blank
lines, comments and the verification, on both sides.

Usage: count_lines.py HPCC_SOURCE_DIR [CSV]  (writes kernel,hpfrt_lines,reference_lines,ratio)

What is counted:
- hpfrt: the example, and the headers of examples/hpcc it includes; its verification is the block
  that starts at the comment naming "(verification)" and ends at the line `const bool ok = ...;`.
- the reference: the files that implement the kernel's computation, its data generation and its
  timing, as listed in REFERENCE; its verification (whole files, or the functions named in
  EXCLUDED_FUNCTIONS, or the lines between the markers of EXCLUDED_SPANS) is left out. The local
  FFT of the reference (FFTE's fft235.c and zfft1d.c) is left out, as hpfrt's examples call FFTW
  for it.
"""
import csv
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = {
    "STREAM": ["stream.cpp"],
    "PTRANS": ["ptrans.cpp", "common.hpp"],
    "RandomAccess": ["random_access.cpp"],
    "FFT (1-D)": ["fft1d.cpp", "fft_along.hpp", "common.hpp"],
}
REFERENCE = {
    "STREAM": ["STREAM/stream.c"],
    "PTRANS": ["PTRANS/pdtrans.c", "PTRANS/pdtransdriver.c", "PTRANS/pdmatgen.c", "PTRANS/pmatgeninc.c"],
    "RandomAccess": ["RandomAccess/MPIRandomAccess.c", "RandomAccess/utility.c"],
    "FFT (1-D)": ["FFT/mpifft.c", "FFT/pzfft1d.c", "FFT/wrapmpifftw.c"],
}
# Verification inside the reference's kernel files.
EXCLUDED_FUNCTIONS = {"STREAM/stream.c": ["checkSTREAMresults"]}
EXCLUDED_SPANS = {  # (first line matching, last line matching), both left out
    "FFT/mpifft.c": [(r"HPCC_bcnrand\( 2 \* tls, 53 \* commRank \* 2 \* tls, work \)", r"if \(maxErr / log\(n\)")],
    "RandomAccess/MPIRandomAccess.c": [(r"Verification phase", r"params->MPIRandomAccess_ErrorsFraction")],
}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return [re.sub(r"//.*", "", line) for line in text.split("\n")]


def drop_function(lines, name):
    """Removes the definition of function `name` (its header lines and its braced body)."""
    out, i = [], 0
    while i < len(lines):
        if re.match(r"^\s*" + name + r"\s*\(", lines[i]) or re.match(r"^\w.*\b" + name + r"\s*\(.*\)\s*\{?\s*$", lines[i]):
            while out and out[-1].strip() and not out[-1].rstrip().endswith((";", "}")):
                out.pop()  # the return type on the line before
            depth, seen = 0, False
            while i < len(lines):
                depth += lines[i].count("{") - lines[i].count("}")
                seen = seen or "{" in lines[i]
                i += 1
                if seen and depth == 0:
                    break
            continue
        out.append(lines[i])
        i += 1
    return out


def drop_spans(lines, spans):
    out, skipping = [], None
    for line in lines:
        if skipping is None:
            hit = [s for s in spans if re.search(s[0], line)]
            if hit:
                skipping = hit[0][1]
                if re.search(skipping, line):
                    skipping = None
                continue
            out.append(line)
        elif re.search(skipping, line):
            skipping = None
    return out


def count_reference(src, path):
    text = open(os.path.join(src, path), encoding="latin-1").read()
    raw = text.split("\n")
    if path in EXCLUDED_SPANS:  # markers may sit in comments: apply before stripping them
        raw = drop_spans(raw, EXCLUDED_SPANS[path])
    lines = strip_comments("\n".join(raw))
    for name in EXCLUDED_FUNCTIONS.get(path, []):
        lines = drop_function(lines, name)
    return sum(1 for line in lines if line.strip())


def count_example(path):
    raw = open(path).read().split("\n")
    kept, skipping = [], False
    for line in raw:
        if "(verification)" in line:
            skipping = True
        if not skipping:
            kept.append(line)
        if skipping and re.match(r"^\s*const bool ok\b", line) and line.rstrip().endswith(";"):
            skipping = False
    return sum(1 for line in strip_comments("\n".join(kept)) if line.strip() and not line.strip().startswith("#include"))


def main():
    if len(sys.argv) < 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: count_lines.py HPCC_SOURCE_DIR [CSV]   (the unpacked hpcc 1.5.0 source: apt-get source hpcc)")
    src = sys.argv[1]
    rows = []
    for kernel, files in EXAMPLES.items():
        ours = sum(count_example(os.path.join(ROOT, "examples", "hpcc", f)) for f in files)
        theirs = sum(count_reference(src, f) for f in REFERENCE[kernel])
        rows.append({"kernel": kernel, "hpfrt_lines": ours, "reference_lines": theirs,
                     "ratio": "%.3f" % (ours / theirs)})
    out = open(sys.argv[2], "w", newline="") if len(sys.argv) > 2 else sys.stdout
    w = csv.DictWriter(out, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)


if __name__ == "__main__":
    main()
