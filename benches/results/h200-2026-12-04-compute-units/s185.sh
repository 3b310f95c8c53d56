set -uo pipefail
# Run 185 (thirty-ninth session), 812ef8d: what the in-pass merge costs where K and V stay in
# the L2 (4096 keys, 8 teams as at 16384: decode_wide=0) against 16384 keys: the merge's code
# comes from the L2 or from memory. Profiling bits (wrong results): decode_merge_ablate=1 the
# count and fences only, =8 no count.
o=/tmp/s185; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/sdpa.xz /tmp/sdpa-bin
for i in 1 2 3; do
  for v in "decode_wide=0" "decode_wide=0,decode_merge_ablate=1" "decode_wide=0,decode_merge_ablate=8"; do
    n=$(echo $v | tr ',=' '__')
    WGPU_SDPA_TUNE=$v timeout 40 $r /tmp/sdpa-bin bench --decode --len 2048,4096,8192,16384,32768 > $o/$n-$i.txt 2>&1
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s185.tgz s185
cd $o
for f in *.txt; do echo "$f call/pass us: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.2f/%.2f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
grep -E '^ *[0-9]+, ' decode_wide_0-1.txt | awk -F, '{print $3+0, $23}'
