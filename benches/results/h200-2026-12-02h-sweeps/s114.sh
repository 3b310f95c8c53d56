set -uo pipefail
# Run 114 (twenty-seventh session): the in-pass merge with two groups of 4 splits a round
# (`decode_merge_ahead=1`; run 53 found the whole kernel slower with such loads) and the merge
# compiled apart from the loop: our own SPIR-V (`spirv_all=1`) with `merge_splits` marked
# DontInline (`spirv_noinline=1`). sdpa1 is the variant tree (22e3e99 + noinline.diff).
o=/tmp/s114; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
declare -A V=( [A]="" [B]="spirv_all=1" [C]="spirv_all=1,spirv_noinline=1" [D]="spirv_all=1,spirv_noinline=1,decode_merge_ahead=1" [E]="decode_merge_ahead=1" )
true
for n in A B C D E; do
  WGPU_SDPA_TUNE="${V[$n]}" timeout 60 bash .device/sass.sh capture $o/sass-$n --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
done
echo "stats at $SECONDS s"
for n in A B C D E; do echo "$n: $(grep -m1 'Register Count' $o/sass-$n/pipeline_stats.txt | tr -s ' ')"; done
WGPU_SDPA_TUNE="${V[D]}" timeout 150 $r .device/sdpa1 check --filter vector > $o/check-D.txt 2>&1; echo "exit $?" >> $o/check-D.txt
WGPU_SDPA_TUNE="${V[D]}" WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 $r .device/t/decode1 --test-threads=1 --nocapture > $o/test-decode-D.txt 2>&1; echo "exit $?" >> $o/test-decode-D.txt
echo "check D: $(tail -2 $o/check-D.txt | tr '\n' ' ')"; echo "decode D: $(grep 'test result' $o/test-decode-D.txt) $(tail -1 $o/test-decode-D.txt)"
echo "checks at $SECONDS s"
names="A B C D E"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,32768,131072 --fused-only"
for i in 1 2 3 4; do
  for n in $names; do WGPU_SDPA_TUNE="${V[$n]}" timeout 60 $r .device/sdpa1 bench $d128 > $o/$n-$i.txt 2>&1; done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384,131072 --fused-only"
for i in 1 2; do for n in A C D; do WGPU_SDPA_TUNE="${V[$n]}" timeout 60 $r .device/sdpa1 bench $d64 > $o/d64-$n-$i.txt 2>&1; done; done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s114.tgz s114
cd $o
for n in A B C D E; do for i in 1 2 3 4; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
for n in A C D; do for i in 1 2; do echo "d64-$n-$i: $(grep -E '^ *[0-9]+, ' d64-$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
