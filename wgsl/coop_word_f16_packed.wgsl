// A 16-byte word of f16 for wgsl/coop_stage_vec.wgsl, loaded as four u32: 8 elements, each pair
// through unpack2x16float and back to f16 (naga 30 rejects bitcast<vec2<f16>>), exactly. The
// host takes it where it ran faster than wgsl/coop_word_f16.wgsl (`half_words` in
// src/kernels/fused_coop.rs).
const CH: u32 = 8u;
alias KvWord = vec4<u32>;

fn put_word(at: u32, w: KvWord) {
    let a = vec2<f16>(unpack2x16float(w.x));
    let b = vec2<f16>(unpack2x16float(w.y));
    let c = vec2<f16>(unpack2x16float(w.z));
    let d = vec2<f16>(unpack2x16float(w.w));
    kv_s[at] = a.x;
    kv_s[at + 1u] = a.y;
    kv_s[at + 2u] = b.x;
    kv_s[at + 3u] = b.y;
    kv_s[at + 4u] = c.x;
    kv_s[at + 5u] = c.y;
    kv_s[at + 6u] = d.x;
    kv_s[at + 7u] = d.y;
}
