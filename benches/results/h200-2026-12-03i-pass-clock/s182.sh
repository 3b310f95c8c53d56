set -uo pipefail
# Run 182 (thirty-seventh session), d313e4a plus the profiling bit decode_ablate=512 (no teams' merge,
# no split results: the code after the loop cut to one store that is never taken; ablate512.diff):
# what a pass of its own costs the call without that code, beside the split phase alone
# (decode_merge_ablate=8) and the committed kernel; every clock, interleaved twice.
o=/tmp/s182; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/sdpa.xz /tmp/sdpa-bin
lens=4096,16384,131072
for rep in 1 2; do
  for k in none decode_merge_ablate=8 decode_ablate=512 decode_ablate=640; do
    WGPU_SDPA_TUNE=$k timeout 60 $r /tmp/sdpa-bin bench --decode --len $lens --fused-only > $o/b-$k-$rep.txt 2>&1
  done
  echo "rep $rep at $SECONDS s"
done
tar -C /tmp -czf $OUT/s182.tgz s182
cd $o
for f in b-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:c%.2f/p%.2f/d%.2f ", $3+0, b/$18/1e3, b/$22/1e3, b/$18/1e3-b/$22/1e3}')"; done
