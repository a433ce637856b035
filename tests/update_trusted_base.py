"""Rewrite the README's trusted-base table from tests/test_trusted_base.py (run after changing the kernel)."""

import re

from test_trusted_base import ROOT, trusted_base, trusted_code

readme = ROOT / "README.md"
text = readme.read_text()
code = trusted_code()
for kind, (lines, _) in trusted_base().items():
    text = re.sub(rf"\| {re.escape(kind)} \| [0-9,]+ \|( [0-9,]+ \|)?", f"| {kind} | {lines:,} | {code[kind]:,} |", text)
total = sum(len(p.read_text().splitlines()) for p in (ROOT / "verified_aat" / "kernel").glob("*.py"))
files = len(list((ROOT / "verified_aat" / "kernel").glob("*.py")))
text = re.sub(r"`verified_aat/kernel/`: [0-9,]+ lines of Python in [0-9]+ files", 
              f"`verified_aat/kernel/`: {total:,} lines of Python in {files} files", text)
readme.write_text(text)
print(total, files, {k: v[0] for k, v in trusted_base().items()})
