set -uo pipefail
# Run 177 (thirty-seventh session): the decode kernel's K and V loads marked Nontemporal in our
# own SPIR-V (knobs spirv_all=1 nontemporal_kv=1) against our own SPIR-V without the mark and
# against wgpu's translation (the default), interleaved; every clock. Then sdpa check's decode
# cases with the mark.
o=/tmp/s177; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/sdpa.xz /tmp/sdpa-bin
lens=4096,16384,32768,131072
for rep in 1 2 3; do
  for k in none spirv_all=1 spirv_all=1,nontemporal_kv=1; do
    WGPU_SDPA_TUNE=$k timeout 60 $r /tmp/sdpa-bin bench --decode --len $lens --fused-only > $o/b-$k-$rep.txt 2>&1
  done
  echo "rep $rep at $SECONDS s"
done
WGPU_SDPA_REQUIRE_ADAPTER=1 WGPU_SDPA_TUNE=spirv_all=1,nontemporal_kv=1 timeout 120 $r /tmp/sdpa-bin check --filter vector > $o/check-nt.txt 2>&1; echo "check exit $?" >> $o/check-nt.txt
tail -2 $o/check-nt.txt
tar -C /tmp -czf $OUT/s177.tgz s177
cd $o
for f in b-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:c%.2f/b%.2f/p%.2f ", $3+0, b/$18/1e3, b/$20/1e3, b/$22/1e3}')"; done
