set -uo pipefail
# Run 175 (thirty-seventh session): the two clocks (a pass a call, its own timestamps; calls
# back to back in one pass) on a kernel that only reads K and V (examples/read_bandwidth.rs,
# with and without the decode kernel's workgroup memory held) beside the decode call, to tell
# the per-call clock's cost at lengths that stream from DRAM apart from the kernel's.
o=/tmp/s175; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/sdpa.xz /tmp/sdpa-bin
unx .device/t/read_bandwidth.xz /tmp/read_bandwidth
for rep in 1 2; do
  timeout 120 $r /tmp/read_bandwidth 4096 16384 131072 > $o/read-$rep.txt 2>&1
  timeout 60 $r /tmp/sdpa-bin bench --decode --len 4096,16384,131072 --fused-only > $o/decode-$rep.txt 2>&1
  WGPU_SDPA_TUNE=decode_merge_ablate=8 timeout 60 $r /tmp/sdpa-bin bench --decode --len 4096,16384,131072 --fused-only > $o/split-only-$rep.txt 2>&1
  echo "rep $rep at $SECONDS s"
done
tar -C /tmp -czf $OUT/s175.tgz s175
cd $o
for f in read-*.txt; do echo "== $f"; grep -E "pass-each|one-pass|empty" $f; done
for f in decode-*.txt split-only-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:c%.2f/b%.2f/p%.2f ", $3+0, b/$18/1e3, b/$20/1e3, b/$22/1e3}')"; done
