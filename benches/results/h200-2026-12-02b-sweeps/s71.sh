set -uo pipefail
# Run 71 (the command as given to the device tool, right after run 70 on the same machine): run
# 69's tree with the fences as workgroup barriers (profiling), 32 splits, and the count only.
o=/tmp/s71; mkdir -p $o; r="bash .device/on-device.sh"; d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only"; for i in 1 2 3; do for v in none decode_merge_ablate=4 decode_wgs=256 decode_merge_ablate=1; do WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/$v-$i.txt 2>&1; done; done; tar -C /tmp -czf $OUT/s71.tgz s71; cd $o; for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done
