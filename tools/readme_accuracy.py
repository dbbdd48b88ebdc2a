"""Write README.md's headline accuracy table from the two accuracy runs it summarises.

README.md marks the table with ``<!-- accuracy -->`` ... ``<!-- /accuracy -->``; this script replaces what is
between them by the figures of ``reports/accuracy/campaign.json`` (the model against its DES:
``benchmarks/accuracy.py run``) and ``reports/mqsim/crossval.json`` (the model and the DES against MQSim:
``benchmarks/mqsim.py run``). The table is generated: rerun those and this, never edit it by hand.

    python tools/readme_accuracy.py            # rewrite the table in README.md
    python tools/readme_accuracy.py --check    # exit 1 where the README's table is not what the runs give
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CAMPAIGN = ROOT / "reports" / "accuracy" / "campaign.json"
CROSSVAL = ROOT / "reports" / "mqsim" / "crossval.json"
BLOCK = re.compile(r"(<!-- accuracy -->\n)(.*?)(<!-- /accuracy -->)", re.DOTALL)
READ_TARGET, OTHER_TARGET = 0.05, 0.10  # MQSim comparison: IOPS within 5 % for reads, 10 % for writes and mixes


def _worst(errors: list[float]) -> str:
    return f"{100 * max(errors, key=abs):+.1f} %"


def table(campaign: dict, crossval: dict) -> str:
    """The README's accuracy table (Markdown, one line per comparison)."""
    designs = campaign["designs"]
    within = sum(d["within"] for d in designs)
    rows = crossval["rows"]

    def against_mqsim(key: str) -> tuple[int, str]:
        errors = [r[key] / r["mqsim_iops"] - 1.0 for r in rows]
        ok = sum(abs(e) <= (READ_TARGET if r["read_pct"] == 100 else OTHER_TARGET) for e, r in zip(errors, rows))
        return ok, _worst(errors)

    des_ok, des_worst = against_mqsim("des_iops")
    model_ok, model_worst = against_mqsim("model_iops")
    return "\n".join([
        "| compared | runs | within the targets | worst IOPS error |",
        "|---|---:|---:|---:|",
        f"| the model against its DES: 3 % IOPS, 10 % mean latency ([report](docs/accuracy.md)) | {len(designs)} "
        f"| {within} | {_worst([d['error']['iops'] for d in designs])} |",
        f"| the DES against MQSim: 5 % IOPS for reads, 10 % for writes ([report](docs/mqsim.md)) | {len(rows)} "
        f"| {des_ok} | {des_worst} |",
        f"| the model against MQSim, the same targets | {len(rows)} | {model_ok} | {model_worst} |",
    ]) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 where the table differs")
    args = ap.parse_args()
    text = README.read_text()
    found = BLOCK.search(text)
    if found is None:
        print(f"{README}: no <!-- accuracy --> ... <!-- /accuracy --> block", file=sys.stderr)
        return 1
    fresh = table(json.loads(CAMPAIGN.read_text()), json.loads(CROSSVAL.read_text()))
    if args.check:
        if found.group(2) != fresh:
            print(f"{README}'s accuracy table differs from the runs: run `python tools/readme_accuracy.py`",
                  file=sys.stderr)
            return 1
        return 0
    sys.path.insert(0, str(ROOT))
    from ssdco.atomic import write_text_atomic

    write_text_atomic(README, text[:found.start(2)] + fresh + text[found.end(2):])
    return 0


if __name__ == "__main__":
    sys.exit(main())
