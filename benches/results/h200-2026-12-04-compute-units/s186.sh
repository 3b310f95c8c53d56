set -uo pipefail
# Run 186 (thirty-ninth session): the in-pass merge's loop with its rounds known at pipeline
# creation (MERGE_ROUNDS, the working tree on 9fa9c97) against the loop running to the splits
# (knob decode_merge_rounds=0, the kernel before), interleaved three times.
o=/tmp/s186; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/sdpa.xz /tmp/sdpa-bin
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r /tmp/sdpa-bin check --filter vector > $o/check-vector.txt 2>&1; echo "exit $?" >> $o/check-vector.txt
echo "check vector: $(tail -2 $o/check-vector.txt | tr '\n' ' ') at $SECONDS s"
for i in 1 2 3; do
  for v in "decode_merge_rounds=1" "decode_merge_rounds=0"; do
    n=$(echo $v | tr ',=' '__')
    WGPU_SDPA_TUNE=$v timeout 60 $r /tmp/sdpa-bin bench --decode --len 1024,2048,4096,8192,16384,32768,131072 > $o/$n-d128-$i.txt 2>&1
    WGPU_SDPA_TUNE=$v timeout 60 $r /tmp/sdpa-bin bench --decode --hdim 64 --len 4096,16384,65536 > $o/$n-d64-$i.txt 2>&1
    WGPU_SDPA_TUNE=$v timeout 60 $r /tmp/sdpa-bin bench --decode --heads 32,32 --len 4096,16384,65536 > $o/$n-h32-$i.txt 2>&1
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s186.tgz s186
cd $o
for f in decode_*.txt; do echo "$f call/pass us: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.2f/%.2f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
for s in d128 d64 h32; do grep -E '^ *[0-9]+, ' decode_merge_rounds_1-$s-1.txt | awk -F, '{print $3+0, $23}'; done
