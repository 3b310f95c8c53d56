// The query vectors of a decode workgroup (wgsl/vector.wgsl, wgsl/vector_coop.wgsl): the query
// heads of one KV head's GQA group times the query rows, numbered r = (h % group) * q_len + i.

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
