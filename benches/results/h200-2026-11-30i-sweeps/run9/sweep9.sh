set -uo pipefail
o=/tmp/s9; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096"
b() { local name=$1 tune=$2; shift 2; WGPU_SDPA_TUNE=$tune $new bench $sh "$@" > $o/$name.txt 2>&1; }
WGPU_SDPA_TUNE=coop_bq=128,coop_bk=64,coop_ck=32 $new check --filter "coop f16" > $o/check-128x64ck32.txt 2>&1
WGPU_SDPA_TUNE=coop_ck=16 $new check --filter "coop" > $o/check-ck16.txt 2>&1
WGPU_SDPA_TUNE=coop_bq=128,coop_bk=48,coop_ck=16 $new check --filter "coop f16" > $o/check-128x48ck16.txt 2>&1
b base "" --hdim 64,128
b d64-128x64ck32 coop_ck=32 --hdim 64 --blocks 128x64
b d64-128x64ck16 coop_ck=16 --hdim 64 --blocks 128x64
b d64-128x96ck16 coop_ck=16 --hdim 64 --blocks 128x96
b d64-128x32ck16 coop_ck=16 --hdim 64 --blocks 128x32
b d64-64x64ck32 coop_ck=32 --hdim 64 --blocks 64x64
b d64-64x64ck32-causal coop_ck=32 --hdim 64 --blocks 64x64 --mask causal
b d64-128x64ck32-causal coop_ck=32 --hdim 64 --blocks 128x64 --mask causal
b d128-128x48ck16 coop_ck=16 --hdim 128 --blocks 128x48
b d128-128x32ck16 coop_ck=16 --hdim 128 --blocks 128x32
b d80-128x48ck16 coop_ck=16 --hdim 80 --blocks 128x48
b d80-128x64ck32 coop_ck=32 --hdim 80 --blocks 128x64
b base-again "" --hdim 64,128
b d64-128x64ck32-again coop_ck=32 --hdim 64 --blocks 128x64
tar -C /tmp -czf $OUT/s9.tgz s9
cd $o; for f in check*; do echo "$f $(tail -n 1 $f)"; done
for f in d*.txt base*.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}') $(grep -o 'wg_mem=[0-9]*B\|q_parts=[0-9]' $f | head -2 | tr '\n' ' ')"; done
grep -h "rror" d*.txt | head -5
