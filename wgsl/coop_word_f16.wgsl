// A 16-byte word of f16 for wgsl/coop_stage_vec.wgsl: 8 elements (naga 30 rejects
// bitcast<vec2<f16>>, so each pair goes through unpack2x16float, exactly).
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
