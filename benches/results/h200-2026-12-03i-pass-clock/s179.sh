set -uo pipefail
# Run 179 (thirty-seventh session): the subgroup decode kernel's loop with a dry first trip
# (knob decode_warm=1: the team's first block with every key excluded, then the loop as
# before; decode_warm=2: the dry trip loads nothing, every trip's loads under a predicate),
# interleaved with the committed kernel; every clock. Then sdpa check's decode cases
# with the knob.
o=/tmp/s179; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/sdpa.xz /tmp/sdpa-bin
lens=4096,8192,16384
for rep in 1 2 3; do
  for k in none decode_warm=1 decode_warm=2; do
    WGPU_SDPA_TUNE=$k timeout 60 $r /tmp/sdpa-bin bench --decode --len $lens --fused-only > $o/b-$k-$rep.txt 2>&1
  done
  echo "rep $rep at $SECONDS s"
done
for w in 1 2; do WGPU_SDPA_REQUIRE_ADAPTER=1 WGPU_SDPA_TUNE=decode_warm=$w timeout 120 $r /tmp/sdpa-bin check --filter vector > $o/check-warm$w.txt 2>&1; echo "check exit $?" >> $o/check-warm$w.txt; tail -2 $o/check-warm$w.txt; done

tar -C /tmp -czf $OUT/s179.tgz s179
cd $o
for f in b-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:c%.2f/b%.2f/p%.2f ", $3+0, b/$18/1e3, b/$20/1e3, b/$22/1e3}')"; done
