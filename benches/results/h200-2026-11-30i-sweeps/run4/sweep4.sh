set -uo pipefail
o=/tmp/s4; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096"
b() { local name=$1 tune=$2; shift 2; WGPU_SDPA_TUNE=$tune $new bench $sh "$@" > $o/$name.txt 2>&1; }
b a1 "" --hdim 64,80,128
b a2 coop_ahead=2 --hdim 64,80,128
b a1-causal "" --hdim 64,128 --mask causal
b a2-causal coop_ahead=2 --hdim 64,128 --mask causal
b a2-d64-64x32 coop_ahead=2 --hdim 64 --blocks 64x32
b a1-d64-64x32 "" --hdim 64 --blocks 64x32
WGPU_SDPA_TUNE=coop_ahead=2 $new check --filter coop > $o/check-a2.txt 2>&1
b a1-again "" --hdim 64,80,128
b a2-again coop_ahead=2 --hdim 64,80,128
{
for k in "" coop_ahead=2; do for d in 64 128; do echo "### d$d $k"; WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --q-len 4096 --hdim $d --dtype f16; done; done
} > $o/regs.txt 2>&1
tar -C /tmp -czf $OUT/s4.tgz s4
cd $o; tail -1 check-a2.txt
for f in a*.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}')"; done
grep "###\|CS: Register" regs.txt
