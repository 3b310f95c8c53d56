// A 16-byte word of f16 for wgsl/coop_stage_vec.wgsl: 8 elements, loaded as two vec4<f16> and
// stored as they are, with no conversion on the way.
const CH: u32 = 8u;

struct KvWord {
    a: vec4<f16>,
    b: vec4<f16>,
}

fn put_word(at: u32, w: KvWord) {
    kv_s[at] = w.a.x;
    kv_s[at + 1u] = w.a.y;
    kv_s[at + 2u] = w.a.z;
    kv_s[at + 3u] = w.a.w;
    kv_s[at + 4u] = w.b.x;
    kv_s[at + 5u] = w.b.y;
    kv_s[at + 6u] = w.b.z;
    kv_s[at + 7u] = w.b.w;
}
