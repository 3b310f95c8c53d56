set -uo pipefail
# Run 68: the decode kernel's fences under the Vulkan memory model. sdpa = the tree with knob
# spirv_vmm=1 (src/spirv.rs: our SPIR-V, needs spirv_all=1, rewritten for the Vulkan memory
# model: Coherent dropped, NonPrivatePointer on shared loads and stores, barriers with
# MakeAvailable | MakeVisible); run 65 showed the GLSL450 module's three fences as
# MEMBAR.SC.GPU. sdpa-prev = 929d653.
o=/tmp/s68; mkdir -p $o
r="bash .device/on-device.sh"
V=spirv_all=1,spirv_vmm=1
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  $r .device/sdpa-prev bench $d128 > $o/prev-$i.txt 2>&1
  $r .device/sdpa bench $d128 > $o/sdpa-$i.txt 2>&1
  WGPU_SDPA_TUNE=spirv_all=1 $r .device/sdpa bench $d128 > $o/spirv-$i.txt 2>&1
  WGPU_SDPA_TUNE=$V $r .device/sdpa bench $d128 > $o/vmm-$i.txt 2>&1
done
WGPU_SDPA_TUNE=$V timeout 200 $r .device/sdpa check > $o/check-vmm.txt 2>&1; echo "check exit $?" >> $o/check-vmm.txt
WGPU_SDPA_TUNE=$V WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/decode --test-threads=1 > $o/test-decode-vmm.txt 2>&1; echo "exit $?" >> $o/test-decode-vmm.txt
WGPU_SDPA_TUNE=$V bash scripts/sass.sh capture $o/c-vmm --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
tar -C /tmp -czf $OUT/s68.tgz s68
cd $o; tail -1 check-vmm.txt; echo "decode: $(grep 'test result' test-decode-vmm.txt) $(tail -1 test-decode-vmm.txt)"
grep -i "register count [0-9]" c-vmm/pipeline_stats.txt | head -3
for f in prev-*.txt sdpa-*.txt spirv-*.txt vmm-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done
