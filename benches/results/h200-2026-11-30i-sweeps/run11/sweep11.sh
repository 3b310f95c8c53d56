set -uo pipefail
o=/tmp/s11; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096"
b() { local name=$1 tune=$2; shift 2; WGPU_SDPA_TUNE=$tune $new bench $sh "$@" > $o/$name.txt 2>&1; }
b base "" --hdim 64,80,128
b early coop_early=1 --hdim 64,80,128
b base-causal "" --hdim 64,128 --mask causal
b early-causal coop_early=1 --hdim 64,128 --mask causal
WGPU_SDPA_TUNE=coop_early=1 $new check --filter coop > $o/check-early.txt 2>&1
b base-again "" --hdim 64,80,128
b early-again coop_early=1 --hdim 64,80,128
python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 128 --lens 4096 > $o/torch.txt 2>&1
tar -C /tmp -czf $OUT/s11.tgz s11
cd $o; tail -n 1 check-early.txt
for f in *.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}')"; done
grep -v "^#" torch.txt
