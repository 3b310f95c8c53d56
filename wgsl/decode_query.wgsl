// The query vectors of a decode workgroup (wgsl/vector.wgsl, wgsl/vector_coop.wgsl,
// wgsl/vector_subgroup.wgsl): the query heads of one KV head's GQA group times the query rows,
// numbered r = (h % group) * q_len + i; and the keys of a split.

struct QueryVector {
    h: u32,       // query head
    i: u32,       // query row
    valid: bool,  // within this KV head's group and q_len
}

// Query vector `r` of a workgroup of `rows` whose first is `qv0` (within the KV head's group).
fn query_vector_of(kv_head: u32, qv0: u32, r: u32, rows: u32) -> QueryVector {
    let g = qv0 + r;
    let valid = r < rows && g < p.group * p.q_len;
    return QueryVector(kv_head * p.group + g / p.q_len, g % p.q_len, valid);
}

// What a decode workgroup `wg` of `rows` query vectors works on: KV split wg.x, the query
// group wg.y (KV head and first query vector), batch wg.z, and the split's keys
// [key_begin, key_end), cut short where a causal mask hides the rest from every query row.
struct DecodeGroup {
    split: u32,
    kv_head: u32,
    qv0: u32,
    b: u32,
    key_begin: u32,
    key_end: u32,
}

// Query groups of `rows` query vectors a KV head makes (the host's `groups_per_head`).
fn groups_per_head(rows: u32) -> u32 {
    return (p.group * p.q_len + rows - 1u) / rows;
}

fn decode_group(wg: vec3<u32>, rows: u32) -> DecodeGroup {
    let per_head = groups_per_head(rows);
    let key_begin = wg.x * p.split_len;
    var key_end = min(key_begin + p.split_len, p.kv_len);
    if (MASK_KIND == 1u) {
        let visible = i32(p.q_len - 1u) + p.causal_shift + 1;
        key_end = min(key_end, u32(clamp(visible, 0, i32(p.kv_len))));
    }
    return DecodeGroup(wg.x, wg.y / per_head, (wg.y % per_head) * rows, wg.z,
                       key_begin, key_end);
}
