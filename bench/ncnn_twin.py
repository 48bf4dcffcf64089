#!/usr/bin/env python3
"""ncnn_twin.py: python3-stdlib helpers for bench/int8_vs_float.sh --ncnn (the ncnn peer on
the float twins).

  ncnn_twin.py prep INFO REFDIR
      INFO is the text of `vkinfer info MODEL`. Writes REFDIR/input_0.f32 (raw float32 NHWC,
      the reference generator: xorshift32 from seed 0x12345678, values in [-1, 1)) and
      REFDIR/manifest.json (the format of ../shared/ref/, which the peer's compare.py reads:
      {"outputs": [{"index", "name", "shape", "file": "output_<i>.f32"}, ...]}). The outputs
      themselves come from `vkinfer run MODEL --task none --input ... --save REFDIR`.
  ncnn_twin.py cell RESULTS MODEL RC TOL INT8_MS CONVERT_LOG
      RESULTS is ncnn_bench.sh's results.jsonl (its --keep dir), RC its exit status, TOL the
      tolerance it checked against (empty: unchecked), INT8_MS vkinfer's int8 median or "-".
      Prints four tab-separated fields: the "ncnn float ms" cell ("M (P10-P90)", or
      "n/a (reason)"), the "ncnn/int8" cell, a note for the footer ("-" when fine) and the
      relative error of ncnn's outputs ("-" when there are none).
"""
import json
import math
import re
import struct
import sys


def tensors(text, kind):
    # `vkinfer info MODEL` lines: input 0 't0' [1,128,128,3] / output 0 't154' [1,16,16,2]
    return [(int(i), n, [int(d) for d in s.split(",") if d])
            for i, n, s in re.findall(r"^%s (\d+) '(.*)' \[([\d,]*)\]" % kind, text, re.M)]


def prep(info, refdir):
    text = open(info, errors="replace").read()
    ins, outs = tensors(text, "input"), tensors(text, "output")
    if len(ins) != 1 or not outs:
        sys.exit("%d inputs and %d outputs in `vkinfer info`; ncnn_bench.sh feeds one input"
                 % (len(ins), len(outs)))
    s, vals = 0x12345678, []
    for _ in range(math.prod(ins[0][2])):
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        vals.append((s >> 8) / 16777216.0 * 2.0 - 1.0)
    with open(refdir + "/input_0.f32", "wb") as f:
        f.write(struct.pack("<%df" % len(vals), *vals))
    man = {"note": "outputs of vkinfer fp32 on the float twin, same input",
           "generator": {"kind": "xorshift32", "seed": 0x12345678},
           "inputs": [{"index": 0, "name": ins[0][1], "shape": ins[0][2], "dtype": "float32",
                       "file": "input_0.f32"}],
           "outputs": [{"index": i, "name": n, "shape": sh, "dtype": "float32",
                        "file": "output_%d.f32" % i} for i, n, sh in outs]}
    with open(refdir + "/manifest.json", "w") as f:
        json.dump(man, f, indent=1)


def cell(results, model, rc, tol, int8_ms, convert_log):
    row = None
    try:
        for line in open(results):
            if line.strip():
                d = json.loads(line)
                if d.get("model") == model:
                    row = d
    except (OSError, ValueError):
        pass
    if row is None:
        return "n/a (failed)", "-", "ncnn_bench.sh exited %s with no result" % rc, "-"
    if "error" in row:
        if row["error"].startswith("conversion"):
            why = ""
            try:
                lines = [l.strip() for l in open(convert_log, errors="replace") if l.strip()]
                why = lines[-1] if lines else ""
            except OSError:
                pass
            return "n/a (convert)", "-", "conversion failed" + (": " + why if why else ""), "-"
        return "n/a (runner)", "-", row["error"], "-"
    med, p10, p90 = row["median_ms"], row["p10_ms"], row["p90_ms"]
    err = float(row.get("rel_err", "nan"))
    if tol and not err <= float(tol):
        return ("n/a (check)", "-", "check failed: rel err %.2g > tol %s against vkinfer fp32 "
                "(median %.3f ms, not shown)" % (err, tol, med), "%.2g" % err)
    if int(rc) != 0:
        return "n/a (failed)", "-", "ncnn_bench.sh exited %s" % rc, "%.2g" % err
    ratio = "%.2fx" % (med / float(int8_ms)) if int8_ms not in ("", "-") else "-"
    return "%.3f (%.3f-%.3f)" % (med, p10, p90), ratio, "-", "%.2g" % err


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "prep":
        prep(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 8 and sys.argv[1] == "cell":
        print("\t".join(cell(*sys.argv[2:])))
    else:
        sys.exit(__doc__)
