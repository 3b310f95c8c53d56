set -uo pipefail
# Run 61 (twentieth session): where the packed f16 rows (knob decode_pack) lose what their fewer
# merge rounds gain. pack=1: the threads sharing an octet agree on max and sum first (three
# barriers); pack=2: one barrier, outputs and (max, sum) side by side (d128 only). With
# MERGE_ABLATE (profiling, wrong results) 1 (count only: the split pass with its packed stores),
# 32 (the first 8 splits only), 256 (no combine).
o=/tmp/s61; mkdir -p $o
r="bash .device/on-device.sh"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  for v in none decode_pack=1 decode_pack=2 decode_merge_ablate=1 decode_pack=1,decode_merge_ablate=1 \
      decode_merge_ablate=32 decode_pack=1,decode_merge_ablate=32 decode_pack=1,decode_merge_ablate=256; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s61.tgz s61
cd $o
for v in none decode_pack=1 decode_pack=2 decode_merge_ablate=1 decode_pack=1,decode_merge_ablate=1 \
    decode_merge_ablate=32 decode_pack=1,decode_merge_ablate=32 decode_pack=1,decode_merge_ablate=256; do
  echo "$v: $(for i in 1 2 3; do grep -E '^ *[0-9]+, ' d128-$v-$i.txt | awk -F, '{printf "%s ", $18}'; echo -n '| '; done)"
done
