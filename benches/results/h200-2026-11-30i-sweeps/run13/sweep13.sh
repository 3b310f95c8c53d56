set -uo pipefail
o=/tmp/s13; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096"
b() { local name=$1 tune=$2; shift 2; WGPU_SDPA_TUNE=$tune $new bench $sh "$@" > $o/$name.txt 2>&1; }
WGPU_SDPA_TUNE=coop_bq=112,coop_bk=32,coop_spad=8 $new check --filter "coop f16" > $o/check-112.txt 2>&1
WGPU_SDPA_TUNE=coop_bq=48,coop_bk=32 $new check --filter "coop f16" > $o/check-48.txt 2>&1
b base "" --hdim 64,128
b d64-112-s8 coop_spad=8 --hdim 64 --blocks 112x32
b d64-112-s8q7 coop_spad=8,coop_qparts=7 --hdim 64 --blocks 112x32
b d128-112-s8 coop_spad=8 --hdim 128 --blocks 112x32
b d128-112-s8-causal coop_spad=8,coop_plain=1 --hdim 128 --blocks 112x32 --mask causal
b base-again "" --hdim 64,128
b d64-112-s8-again coop_spad=8 --hdim 64 --blocks 112x32
b d128-112-s8-again coop_spad=8 --hdim 128 --blocks 112x32
tar -C /tmp -czf $OUT/s13.tgz s13
cd $o; for f in check*; do echo "$f $(tail -n 1 $f)"; done
for f in d*.txt base*.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}') $(grep -o 'q_parts=[0-9]*\|wg_mem=[0-9]*B' $f | head -2 | tr '\n' ' ')"; done
