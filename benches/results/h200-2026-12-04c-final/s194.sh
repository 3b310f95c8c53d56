set -uo pipefail
# Run 194 (forty-first session), aa2726a (kernels as 0e15158): decode shapes beyond issue #5's
# protocol, each beside PyTorch's SDPA in the same command: batches 4, 8 and 32 (32/8 heads,
# d128, f16); 32/32 and 64/8 heads; d64 and d256; f32.
o=/tmp/s194; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
T="timeout 120 python3 .device/torch_sdpa_bench.py --decode"
run() { # name, sdpa args, torch args
  timeout 120 $r .device/sdpa bench --decode $2 > $o/$1.txt 2>&1
  $T $3 > $o/$1-torch.txt 2>&1
}
run b4 "--batch 4 --len 1024,4096,16384,65536" "--batch 4 --dtype float16 --hdim 128 --heads 32 8 --lens 1024 4096 16384 65536"
run b8 "--batch 8 --len 1024,4096,16384,32768" "--batch 8 --dtype float16 --hdim 128 --heads 32 8 --lens 1024 4096 16384 32768"
run b32 "--batch 32 --len 1024,2048,4096,8192" "--batch 32 --dtype float16 --hdim 128 --heads 32 8 --lens 1024 2048 4096 8192"
run h32 "--heads 32,32 --len 1024,4096,16384,65536" "--dtype float16 --hdim 128 --heads 32 32 --lens 1024 4096 16384 65536"
run h64 "--heads 64,8 --len 1024,4096,16384,65536" "--dtype float16 --hdim 128 --heads 64 8 --lens 1024 4096 16384 65536"
run d64 "--hdim 64 --len 1024,4096,16384,65536" "--dtype float16 --hdim 64 --heads 32 8 --lens 1024 4096 16384 65536"
run d256 "--hdim 256 --len 1024,4096,16384,65536" "--dtype float16 --hdim 256 --heads 32 8 --lens 1024 4096 16384 65536"
run f32 "--dtype f32 --len 1024,4096,16384,65536" "--dtype float32 --hdim 128 --heads 32 8 --lens 1024 4096 16384 65536"
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s194.tgz s194
cd $o
for n in b4 b8 b32 h32 h64 d64 d256 f32; do
  echo "$n ours call/1pass us, GB/s, unfused ms: $(grep -E '^ *[0-9]+, ' $n.txt | awk -F, '{b=2*$1*$6*$3*$4*(($8 ~ /f32/)?4:2); printf "%s:%.1f/%.1f %.0f u%s | ", $3+0, b/$18/1e3, b/$22/1e3, $18, $10+0}')"
  echo "$n torch us: $(grep -E '^ *[0-9]+, ' $n-torch.txt | awk -F, '{printf "%s:%.1f ", $3, $11*1000}')"
done
