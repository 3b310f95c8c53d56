// A 16-byte word of f16 for wgsl/coop_stage_vec.wgsl (and the decode kernel on cooperative
// matrices, wgsl/vector_coop.wgsl), loaded as four u32: 8 elements, each pair
// through unpack2x16float and back to f16 (naga 30 rejects bitcast<vec2<f16>>), exactly. (Loaded
// as two vec4<f16> and stored as they were, the words ran faster at head dims 80-112 until the
// kernel's loop lost its register copies, then slower at every head dim: H200, f16, L = 4096,
// d80 1.318 against 1.413 ms, d128 1.647 against 2.833; tenth session, sweep 4.)
const CH: u32 = 8u;

fn put_word(at: u32, w: vec4<u32>) {
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
