#!/bin/sh
# vs_ncnn.sh [--vkinfer BIN] [--model-dir DIR] [--peer DIR] [--floor-us US] [--rounds N]
#            [--runs N] [--warmup N] [--precision fp32|fp16] [--work DIR] [MODEL...]
#
# vkinfer against the ncnn peer engine on the same graphs, the same input and the default
# Vulkan device, run ALTERNATELY model by model (vkinfer A, ncnn A, vkinfer B, ncnn B, ...;
# with --rounds N the whole sweep is repeated, each round swapping which engine goes first),
# so that machine noise hits both alike. Prints a header (device, runs, warm-ups, precision,
# date) and one markdown row per model: median (p10-p90) of each engine, ncnn/vkinfer,
# vkinfer's dispatch count and the dispatch floor (dispatches x --floor-us), and both
# engines' output checks. Exits non-zero if any run fails or any output check fails.
#
# Defaults (environment in brackets): vkinfer = build/vkinfer [VKINFER], models =
# models/cache [MODEL_DIR], peer = ../shared/peers/ncnn beside the repository if it
# exists, else shared/peers/ncnn inside it [NCNN_DIR], floor not shown [FLOOR_US], 1 round [ROUNDS], 100 runs [RUNS] after
# 10 warm-ups [WARMUP], fp32 [PRECISION], all ten MediaPipe models [MODELS, or MODEL...].
# VKI_RUN_FLAGS adds flags to every `vkinfer run` (e.g. --spin); NCNN_GPU picks ncnn's
# --gpu index (default 0).
#
# Inputs: tests/data/ref/<m>/input_0.f32 where it exists; otherwise the reference runner's
# generator (xorshift32, seed 0x12345678, [-1, 1)), written to a file both engines read.
# Checks: vkinfer --check against tests/data/ref (1e-4, pose 5e-4; fp16: 3e-2); the peer
# script checks its outputs itself, against the same references, or, for models without
# one, against vkinfer's outputs on the same input (a cross-check, marked "vs vkinfer").
# fp16 keeps fp32 the ops `vkinfer calibrate` names, as conformance.sh does; ncnn runs its
# own fp16 mode, which its script does not check against a tolerance.
# The peer's converted models, unpacked runner and logs stay in the work dir (its --keep);
# conversion happens outside the timed runs. --work DIR keeps everything for inspection.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,3p' "$0" | sed 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }

vkinfer=${VKINFER:-$root/build/vkinfer}
modeldir=${MODEL_DIR:-$root/models/cache}
peer=${NCNN_DIR:-}
for d in "$root/../shared/peers/ncnn" "$root/shared/peers/ncnn"; do
  if [ -z "$peer" ] && [ -d "$d" ]; then peer=$(cd "$d" && pwd); fi
done
floor=${FLOOR_US:-}
rounds=${ROUNDS:-1}
runs=${RUNS:-100}
warmup=${WARMUP:-10}
precision=${PRECISION:-fp32}
extra=${VKI_RUN_FLAGS:-}
gpu=${NCNN_GPU:-0}
work=""
models=${MODELS:-"face_detection_short_range face_detection_full_range
  face_detection_full_range_sparse selfie_segmentation selfie_segmentation_landscape
  hand_landmark_lite hand_landmark_full pose_landmark_lite pose_landmark_full
  pose_landmark_heavy"}
given=""
while [ $# -gt 0 ]; do
  case "$1" in
    --vkinfer) vkinfer=$2; shift 2;;
    --model-dir) modeldir=$2; shift 2;;
    --peer) peer=$2; shift 2;;
    --floor-us) floor=$2; shift 2;;
    --rounds) rounds=$2; shift 2;;
    --runs) runs=$2; shift 2;;
    --warmup) warmup=$2; shift 2;;
    --precision) precision=$2; shift 2;;
    --work) work=$2; shift 2;;
    -h|--help) usage 0;;
    -*) echo "vs_ncnn.sh: unknown option $1" >&2; usage;;
    *) given="$given ${1%.tflite}"; shift;;
  esac
done
[ -n "$given" ] && models=$given

die() { echo "vs_ncnn.sh: $*" >&2; exit 2; }
[ -x "$vkinfer" ] || die "no vkinfer binary at $vkinfer (build it, or pass --vkinfer)"
[ -d "$modeldir" ] || die "no model dir $modeldir (pass --model-dir)"
[ -n "$peer" ] || die "no peer dir: pass --peer DIR (the ncnn package with ncnn_bench.sh) or set NCNN_DIR"
[ -f "$peer/ncnn_bench.sh" ] || die "no ncnn_bench.sh in $peer"
command -v python3 > /dev/null || die "python3 is needed"
case "$precision" in
  fp32) vkprec=""; ncprec=--fp32;;
  fp16) vkprec=--fp16; ncprec=--fp16;;
  *) die "--precision must be fp32 or fp16";;
esac
for n in "$rounds" "$runs" "$warmup"; do
  case "$n" in ''|*[!0-9]*) die "rounds, runs and warm-ups must be whole numbers";; esac
done
[ "$rounds" -ge 1 ] && [ "$runs" -ge 1 ] || die "need at least one round and one run"
if [ -n "$floor" ]; then
  python3 -c 'import sys; float(sys.argv[1])' "$floor" 2> /dev/null || die "--floor-us takes microseconds, e.g. 2.4"
fi
for m in $models; do [ -f "$modeldir/$m.tflite" ] || die "no $modeldir/$m.tflite"; done

if [ -n "$work" ]; then mkdir -p "$work" && work=$(cd "$work" && pwd) || die "cannot use $work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/vs_ncnn.XXXXXX") || die "mktemp failed"
  trap 'rm -rf "$work"' EXIT
  trap 'exit 130' INT TERM
fi
mkdir -p "$work/ref" "$work/log" "$work/ncnn"
results=$work/results.txt; : > "$results"
say() { echo "$*" >&2; }

# ---- helpers (python3 stdlib): inputs, manifests, parsing both engines' output, the table
cat > "$work/vs.py" <<'EOF'
import json, math, os, re, struct, sys

def geninput(path, count):
    # the reference runner's generator: xorshift32 from 0x12345678, v = (s>>8)/2^24*2-1
    s, out = 0x12345678, []
    for _ in range(count):
        s ^= (s << 13) & 0xFFFFFFFF; s ^= s >> 17; s ^= (s << 5) & 0xFFFFFFFF
        out.append((s >> 8) / 16777216.0 * 2.0 - 1.0)
    with open(path, "wb") as f:
        f.write(struct.pack("<%df" % count, *out))

def info_tensors(text, kind):
    # `vkinfer info MODEL` lines: input 0 'name' [1,128,128,3]
    return [(int(i), n, [int(d) for d in s.split(",")])
            for i, n, s in re.findall(r"^%s (\d+) '(.*)' \[([\d,]+)\]" % kind, text, re.M)]

def cmd_input(info_file, path):
    ins = info_tensors(open(info_file).read(), "input")
    if len(ins) != 1:
        sys.exit("model has %d inputs; only one-input models are supported" % len(ins))
    geninput(path, math.prod(ins[0][2]))

def cmd_manifest(info_file, refdir, model):
    outs = info_tensors(open(info_file).read(), "output")
    man = {"model": model + ".tflite", "note": "outputs of vkinfer on the same input",
           "outputs": [{"index": i, "name": n, "shape": s, "file": "output_%d.f32" % i}
                       for i, n, s in outs]}
    json.dump(man, open(os.path.join(refdir, "manifest.json"), "w"), indent=1)

def num(x):
    try: return float(x)
    except ValueError: return None

def cmd_vk(log, rc, model, rnd, vs):
    # one `vkinfer run` log -> a results line (JSON)
    t = open(log, errors="replace").read()
    r = {"engine": "vkinfer", "model": model, "round": int(rnd), "rc": int(rc)}
    # "model M on DEVICE: 164 ops in the file, 90 run after folding, 41 dispatches, ..."
    m = re.search(r"^model .* on (.*?): .*?(\d+) dispatches", t, re.M)
    if m: r["device"], r["dispatches"] = m.group(1), int(m.group(2))
    m = re.search(r"^latency: median ([\d.]+) ms, min [\d.]+, p10 ([\d.]+), p90 ([\d.]+)", t, re.M)
    if m: r["median"], r["p10"], r["p90"] = map(float, m.groups())
    # "output 0 'regressors' [1,896,16]  check: error 3.45e-07 <= 0.0001 ok"
    errs = re.findall(r"^output \d+ '.*' \[.*\]\s+check: error (\S+) \S+ \S+ (\w+)", t, re.M)
    if errs:
        r["err"] = max(float(e) for e, _ in errs)
        r["check"] = "ok" if all(v == "ok" for _, v in errs) and int(rc) == 0 else "FAIL"
    elif vs == "-":   # checked against TFLite, but no check line read: a format this script misreads
        r["check"], r["why"] = "FAIL", "no check line in the vkinfer log"
    else:
        r["check"] = "no ref" if int(rc) == 0 else "FAIL"
    m = re.search(r"^precision: (\d+ of \d+ ops fp16)", t, re.M)
    if m: r["mixed"] = m.group(1)
    if "median" not in r or int(rc) != 0:
        r["check"] = "FAIL"
        bad = [l for l in t.splitlines() if "vkinfer:" in l or "FAIL" in l]
        r["why"] = "; ".join(bad[-3:]) or "vkinfer exited %s" % rc
    print(json.dumps(r))

def cells(line):
    line = line.strip()
    if not line.startswith("|"): return None
    return [c.strip() for c in line.strip("|").split("|")]

def cmd_ncnn(out, err, rc, model, rnd, vs):
    # ncnn_bench.sh's markdown: find the header row (first cell "model"), map its columns by
    # name, then the row whose first cell is the model
    t = open(out, errors="replace").read()
    r = {"engine": "ncnn", "model": model, "round": int(rnd), "rc": int(rc), "vs": vs}
    m = re.search(r"^ncnn (\S+) (\S+) on (.*?), threads (\S+), (\S+) warm-up \+ (\S+) timed", t, re.M)
    if m: r["device"], r["threads"] = m.group(3), m.group(4)
    head, row = None, None
    for line in t.splitlines():
        c = cells(line)
        if not c: continue
        if c[0].lower() == "model": head = [h.lower() for h in c]
        elif head and c[0] == model: row = dict(zip(head, c))
    why = None
    if row is None:
        why = "no row for %s in ncnn_bench.sh's table" % model
    else:
        vals = [num(row.get(k, "")) for k in ("median", "p10", "p90")]
        if None in vals:
            why = "ncnn_bench.sh: " + row.get("median", "?")
        else:
            r["median"], r["p10"], r["p90"] = vals
        e = num(row.get("rel err", ""))
        if e is not None: r["err"] = e
        chk = row.get("check", "")
        r["check"] = "ok" if chk == "ok" else ("unchecked" if chk == "-" else "FAIL")
        if chk.startswith("FAIL") and not why: why = "ncnn_bench.sh check: " + chk
    if why:
        r["check"] = "FAIL"
        tail = [l for l in open(err, errors="replace").read().splitlines() if l.strip()]
        r["why"] = why + ("; " + " / ".join(tail[-3:]) if tail and not tail[-1].startswith("{") else "")
    print(json.dumps(r))

def median(xs):
    xs = sorted(xs); n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2

def cmd_report(results, models, runs, warmup, rounds, prec, floor, date, flags, peer_prec):
    rows = [json.loads(l) for l in open(results) if l.strip()]
    models, rounds = models.split(), int(rounds)
    fl = float(floor) if floor else None
    dev_v = next((r["device"] for r in rows if r["engine"] == "vkinfer" and "device" in r), "?")
    dev_n = next((r["device"] for r in rows if r["engine"] == "ncnn" and "device" in r), "?")
    thr = next((r["threads"] for r in rows if r["engine"] == "ncnn" and "threads" in r), "?")
    print("device: %s" % dev_v)
    if dev_n not in (dev_v, "?"):
        print("WARNING: ncnn ran on a different device: %s" % dev_n)
    how = ("vkinfer vs ncnn (Vulkan), %s, %s runs after %s warm-up%s per engine and model, "
           "%d alternating round%s, %s (UTC)" % (prec, runs, warmup, "" if warmup == "1" else "s",
           rounds, "" if rounds == 1 else "s", date))
    print(how)
    print("vkinfer: `vkinfer run`%s; ncnn: ncnn_bench.sh %s, threads %s; times are wall ms "
          "per inference (input copy, submit, wait; ncnn also reads its outputs back)"
          % ((" " + flags.strip()) if flags.strip() else "", peer_prec, thr))
    if rounds > 1:
        print("medians: the median of the round medians; spread: the lowest p10 and highest "
              "p90 of any round")
    print()
    fcol = "floor (dispatches × %s µs)" % floor if fl is not None else "floor"
    print("| model | vkinfer median (p10–p90) | ncnn median (p10–p90) | ncnn / vkinfer | "
          "dispatches | %s | vkinfer check | ncnn check |%s" % (fcol, " ratio per round |" if rounds > 1 else ""))
    print("|---|---|---|---|---|---|---|---|%s" % ("---|" if rounds > 1 else ""))
    failures = []
    def agg(rs):
        ok = [r for r in rs if "median" in r]
        if not ok: return None
        return (median([r["median"] for r in ok]), min(r["p10"] for r in ok), max(r["p90"] for r in ok))
    def chk(rs, vs=""):
        if not rs: return "FAIL (not run)"
        if any(r["check"] == "FAIL" for r in rs): return "**FAIL**"
        errs = [r["err"] for r in rs if "err" in r]
        e = (" %.1e" % max(errs)) if errs else ""
        c = rs[0]["check"]
        if c == "no ref": return "no ref"
        return c + e + (vs if errs else "")
    for m in models:
        v = sorted((r for r in rows if r["model"] == m and r["engine"] == "vkinfer"), key=lambda r: r["round"])
        n = sorted((r for r in rows if r["model"] == m and r["engine"] == "ncnn"), key=lambda r: r["round"])
        for r in v + n:
            if r["check"] == "FAIL":
                failures.append("%s round %d %s: %s" % (m, r["round"], r["engine"], r.get("why", "output check failed")))
        if len(v) < rounds or len(n) < rounds:
            failures.append("%s: %d vkinfer and %d ncnn results of %d rounds" % (m, len(v), len(n), rounds))
        av, an = agg(v), agg(n)
        fmt = lambda a: "FAIL" if a is None else "%.3f ms (%.3f–%.3f)" % a
        ratio = "%.2f" % (an[0] / av[0]) if av and an else "-"
        disp = next((r["dispatches"] for r in v if "dispatches" in r), None)
        fls = "%.3f ms" % (disp * fl / 1000) if disp is not None and fl is not None else "-"
        vs = " (vs vkinfer)" if n and n[0].get("vs") == "vkinfer" else ""
        mixed = next((r["mixed"] for r in v if "mixed" in r), None)
        vk = fmt(av) + ("; %s" % mixed if mixed else "")
        line = "| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            m, vk, fmt(an), ratio, "-" if disp is None else disp, fls,
            chk(v, " (vs fp32)" if vs else ""), chk(n, vs))
        if rounds > 1:
            per = []
            for k in range(1, rounds + 1):
                a = next((r["median"] for r in v if r["round"] == k and "median" in r), None)
                b = next((r["median"] for r in n if r["round"] == k and "median" in r), None)
                per.append("%.2f" % (b / a) if a and b else "-")
            line += " %s |" % ", ".join(per)
        print(line)
    if failures:
        print()
        print("FAILED (%d):" % len(failures))
        for f in failures: print("  FAIL " + f)
        sys.exit(1)

cmd = sys.argv[1]
{"input": cmd_input, "manifest": cmd_manifest, "vk": cmd_vk, "ncnn": cmd_ncnn,
 "report": cmd_report}[cmd](*sys.argv[2:])
EOF

# ---- preparation (untimed): inputs, cross-references for models without one, fp16 lists
say "vs_ncnn.sh: vkinfer $vkinfer, models $modeldir, peer $peer, work dir $work"
for m in $models; do
  tfl=$modeldir/$m.tflite
  vsn=""
  if [ -f "$root/tests/data/ref/$m/input_0.f32" ] && [ -f "$root/tests/data/ref/$m/manifest.json" ]; then
    refdir=$root/tests/data/ref
  else
    refdir=$work/ref
    vsn=vkinfer
    mkdir -p "$refdir/$m"
    "$vkinfer" info "$tfl" > "$work/log/$m.info" 2>&1 || { cat "$work/log/$m.info" >&2; die "vkinfer info $m failed"; }
    python3 "$work/vs.py" input "$work/log/$m.info" "$refdir/$m/input_0.f32" || die "$m: no input"
  fi
  keep=""
  if [ "$precision" = fp16 ]; then
    # shellcheck disable=SC2086
    keep=$("$vkinfer" calibrate "$tfl" --input "$refdir/$m/input_0.f32" $vkprec $extra 2>&1 | sed -n 's/^--fp32-ops //p')
  fi
  if [ -n "$vsn" ]; then
    # the peer checks its outputs against vkinfer's fp32 outputs on the same input (and so
    # does vkinfer in fp16)
    say "  $m: no TFLite reference; the peer is checked against vkinfer's outputs"
    # shellcheck disable=SC2086
    "$vkinfer" run "$tfl" --input "$refdir/$m/input_0.f32" --save "$refdir/$m" --runs 1 --warmup 0 \
        $extra > "$work/log/$m.save" 2>&1 \
      && python3 "$work/vs.py" manifest "$work/log/$m.info" "$refdir/$m" "$m" \
      || say "  $m: vkinfer could not save outputs for the cross-check (see the run below)"
  fi
  printf '%s %s %s %s\n' "$m" "$refdir" "${vsn:--}" "${keep:--}" >> "$work/prep.txt"
done

# ---- alternating rounds
tol() {
  if [ "$precision" = fp16 ]; then echo 3e-2
  else case "$1" in pose_*) echo 5e-4;; *) echo 1e-4;; esac; fi
}
run_vkinfer() { # model refdir vs keep round
  log=$work/log/$1.$5.vkinfer
  chk=""
  [ "$3" = - ] || [ "$precision" = fp16 ] && chk="--check $2/$1 --tolerance $(tol "$1")"
  ops=""
  [ "$4" != - ] && ops="--fp32-ops $4"
  # shellcheck disable=SC2086
  # --warmup-ms 0: the same warm-up by count as ncnn's (vkinfer would otherwise warm up
  # for a second and until steady, ncnn cannot). --with-io: ncnn's timed run includes its
  # input upload, so vkinfer's includes the input copy.
  "$vkinfer" run "$modeldir/$1.tflite" --input "$2/$1/input_0.f32" $chk --runs "$runs" \
      --warmup "$warmup" --warmup-ms 0 --with-io $vkprec $ops $extra < /dev/null > "$log" 2>&1
  rc=$?
  python3 "$work/vs.py" vk "$log" "$rc" "$1" "$5" "$3" >> "$results"
  say "  round $5 $1 vkinfer: $(sed -n 's/^latency: //p' "$log" | cut -d, -f1,3,4)$( [ $rc -eq 0 ] || echo " FAILED (rc=$rc)")"
}
run_ncnn() { # model refdir vs keep round
  log=$work/log/$1.$5.ncnn
  # Against vkinfer's outputs both engines' errors add up: pose's ill-conditioned outputs
  # are within 5e-4 (vkinfer) and 3.3e-4 (ncnn) of TFLite, so they get 1e-3 there.
  ntol=""
  [ "$3" != - ] && [ "$precision" = fp32 ] && case "$1" in pose_*) ntol="--tol 1e-3";; esac
  # shellcheck disable=SC2086
  sh "$peer/ncnn_bench.sh" "$modeldir" "$2" --models "$1" --mode vulkan $ncprec --runs "$runs" \
      --warmup "$warmup" --gpu "$gpu" --keep "$work/ncnn" $ntol < /dev/null > "$log.out" 2> "$log.err"
  rc=$?
  python3 "$work/vs.py" ncnn "$log.out" "$log.err" "$rc" "$1" "$5" "$3" >> "$results"
  say "  round $5 $1 ncnn: $(grep "^| $1 |" "$log.out" | awk -F' *[|] *' '{printf "median %s ms, p10 %s, p90 %s", $3, $4, $5}')$( [ $rc -eq 0 ] || echo " FAILED (rc=$rc)")"
}
# The GPU's SM clock where nvidia-smi reads it, before each round.
clock() {
  command -v nvidia-smi >/dev/null 2>&1 &&
    nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | head -1 || echo "no reading"
}
r=1
while [ "$r" -le "$rounds" ]; do
  say "round $r: GPU clock $(clock)"
  while read -r m refdir vsn keep; do
    if [ $((r % 2)) -eq 1 ]; then
      run_vkinfer "$m" "$refdir" "$vsn" "$keep" "$r"; run_ncnn "$m" "$refdir" "$vsn" "$keep" "$r"
    else
      run_ncnn "$m" "$refdir" "$vsn" "$keep" "$r"; run_vkinfer "$m" "$refdir" "$vsn" "$keep" "$r"
    fi
  done < "$work/prep.txt"
  r=$((r + 1))
done

# ---- the table
echo
python3 "$work/vs.py" report "$results" "$models" "$runs" "$warmup" "$rounds" "$precision" \
    "$floor" "$(date -u +%F)" "$vkprec $extra" "$ncprec"
