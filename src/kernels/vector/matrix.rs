//! Host side of `wgsl/vector_coop.wgsl`, the decode kernel on cooperative matrices (f16, 16x16
//! fragments, short caches): its shape, where it serves and takes, tiles and split pass; and what
//! the cooperative-matrix subgroup kernel (`coop_teams.rs`) shares of it (the fragment and its
//! padding, `fragment_tiles`, `coop_decode_variant`).

use super::splits::key_splits_for;
use super::VectorTiles;
use crate::capabilities::Capabilities;
use crate::desc::AttentionDesc;
use crate::error::Result;
use crate::kernels::kv_in_16_byte_words;
use crate::planner::mask_kind;
use crate::shader::{CoopHeader, KernelEntry, ShaderVariant};

/// Fragment size of the cooperative-matrix decode kernel (16x16x16 f16, f32 accumulators).
pub(super) const MATRIX_FRAG: u32 = 16;
/// Elements of padding per staged row of K and V (16 bytes of f16).
pub(super) const MATRIX_PAD: u32 = 8;

/// Workgroup memory the cooperative-matrix decode kernel stays within: on the H200 a
/// workgroup of more than 32 KB ran one to an SM (sweep 9 of
/// benches/results/h200-2026-11-30l-sweeps: d64, 16384 keys, 23 us at 15.4 KB, 37 us padded to
/// 33.9 or 46 KB).
pub(super) const MATRIX_BUDGET_BYTES: u32 = 31 * 1024;

/// The cooperative-matrix decode kernel's shape (`wgsl/vector_coop.wgsl`): one subgroup of 32
/// per O fragment, 16 softmax threads a row with 4 keys each.
#[derive(Debug, Clone, Copy)]
struct MatrixShape {
    subgroups: u32,
    threads: u32,
    /// Keys per tile.
    keys: u32,
}

impl MatrixShape {
    fn new(desc: &AttentionDesc) -> Self {
        let subgroups = desc.v_head_dim / MATRIX_FRAG;
        MatrixShape {
            subgroups,
            threads: 32 * subgroups,
            keys: 8 * subgroups,
        }
    }

    /// `QR`: rows of Q the kernel keeps (8 where it serves at most 8 query vectors, else 16).
    fn q_rows(&self, desc: &AttentionDesc) -> u32 {
        if desc.group_size() * desc.q_len <= 8 {
            8
        } else {
            MATRIX_FRAG
        }
    }

    /// `KVO`: where the K/V tile starts in `kv_s`, after Q's rows.
    fn kv_offset(&self, desc: &AttentionDesc) -> u32 {
        self.q_rows(desc) * (desc.head_dim + MATRIX_PAD)
    }

    /// `KVE`: f16 elements of `kv_s`: Q's rows, then the tile's K or V (they take turns).
    fn kv_elems(&self, desc: &AttentionDesc) -> u32 {
        self.kv_offset(desc) + self.keys * (desc.head_dim.max(desc.v_head_dim) + MATRIX_PAD)
    }

    /// `SB`: floats of the score array (the scores of each half of the head dims, or each
    /// subgroup's O fragment for a rescale or the output).
    fn score_elems(&self) -> u32 {
        (2 * MATRIX_FRAG * (self.keys + 4)).max(self.subgroups * MATRIX_FRAG * MATRIX_FRAG)
            + crate::tune::knob("decode_sb_pad").unwrap_or(0)
    }

    /// Workgroup memory, bytes: Q and the K/V buffer, the scores, P, the rows' factors and
    /// statistics.
    fn workgroup_bytes(&self, desc: &AttentionDesc) -> u32 {
        2 * self.kv_elems(desc)
            + 4 * self.score_elems()
            + 2 * MATRIX_FRAG * (self.keys + MATRIX_PAD)
            + 4 * MATRIX_FRAG
            + 16 * MATRIX_FRAG
    }
}

/// The longest cache `Path::Auto`'s decode kernel takes cooperative matrices for (knob
/// `decode_coop=1` takes them at every length, `=0` never). H200, f16, 32/8 heads, q_len 1
/// (sweep 13 of benches/results/h200-2026-11-30l-sweeps, µs): d128 at 256 / 1024 / 4096 keys
/// 11.4 / 15.0 / 15.9 against the f32 vector kernel's 13.5 / 17.4 / 18.0, at 16384 keys 42.7
/// against 38.3 (131072: 202 against 177); d64 at 4096 14.9 against 15.3, at 16384 23.0 against
/// 21.5. The matrix kernel keeps a tile of K and one of V in flight per workgroup, which long
/// caches need more of than it has (BENCHMARKS.md).
pub const MATRIX_MAX_KV_LEN: u32 = 4096;

/// Whether the decode kernel takes cooperative matrices for `desc`: where they serve it
/// ([`matrix_serves`]) against at most [`MATRIX_MAX_KV_LEN`] keys (knob `decode_coop`).
pub fn matrix_takes(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    match crate::tune::knob("decode_coop") {
        Some(0) => false,
        Some(1) => matrix_serves(caps, desc),
        _ => desc.kv_len <= MATRIX_MAX_KV_LEN && matrix_serves(caps, desc),
    }
}

/// Whether the cooperative-matrix decode kernel serves `desc` on an adapter with `caps`: f16
/// on listed 16x16 f16 fragments with 32-wide subgroups, K and V in 16-byte words, head dims 64,
/// 96 or 128 (the kernel takes any multiple of 32 up to 128: each subgroup takes half of Q's
/// fragments), value head dims 64 or 128 (a subgroup per O fragment) and no larger than the
/// head dim (the pairs run on the H200: d64, d96/dv64, d128, d128/dv64), within the workgroup
/// memory.
pub fn matrix_serves(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    desc.dtype == crate::desc::DType::F16
        && crate::kernels::fused_coop::runnable(caps, desc.dtype) == Some((MATRIX_FRAG, false))
        && caps.subgroup_min_size == 32
        && kv_in_16_byte_words(desc)
        && [64, 96, 128].contains(&desc.head_dim)
        && [64, 128].contains(&desc.v_head_dim)
        && desc.v_head_dim <= desc.head_dim
        && 2 * desc.v_head_dim <= caps.max_workgroup_threads()
        && MatrixShape::new(desc).workgroup_bytes(desc)
            <= MATRIX_BUDGET_BYTES.min(caps.max_workgroup_storage_bytes)
}

/// Tiles and splits of the cooperative-matrix decode kernel (see [`matrix_serves`]).
pub(super) fn matrix_tiles(
    caps: &Capabilities,
    desc: &AttentionDesc,
    splits: Option<u32>,
) -> Result<VectorTiles> {
    let shape = MatrixShape::new(desc);
    let (threads, keys) = (shape.threads, shape.keys);
    let rows = (desc.group_size() * desc.q_len).min(MATRIX_FRAG);
    let splits = key_splits_for(caps, desc, rows, keys, splits)?;
    Ok(fragment_tiles(
        rows,
        keys,
        threads,
        splits,
        shape.workgroup_bytes(desc),
    ))
}

/// Tiles of the decode kernels on fragments for `rows` query vectors a workgroup, tiles or
/// workgroup strides of `block_k` keys, `(kv_splits, split_len)`, and the workgroup's threads and
/// bytes; `team` 0 (the cooperative-matrix subgroup kernel sets it), none of the other decode
/// kernels' choices.
pub(super) fn fragment_tiles(
    rows: u32,
    block_k: u32,
    workgroup_size: u32,
    (kv_splits, split_len): (u32, u32),
    workgroup_bytes: u32,
) -> VectorTiles {
    VectorTiles {
        vectorized: true,
        matrix: true,
        ..VectorTiles::base(
            rows,
            block_k,
            workgroup_size,
            (kv_splits, split_len),
            workgroup_bytes,
        )
    }
}

/// A split pass of the decode kernels on fragments (`entry`) for `rows` query vectors a
/// workgroup, with its `constants` after `RQ` and the head dims: 16x16, Q's and O's fragments by
/// the head dims (neither stages in parts or splits f32).
pub(super) fn coop_decode_variant(
    entry: KernelEntry,
    desc: &AttentionDesc,
    rows: u32,
    more: &[(&'static str, u32)],
) -> ShaderVariant {
    let mut constants = vec![
        ("RQ", rows),
        ("HEAD_DIM", desc.head_dim),
        ("V_HEAD_DIM", desc.v_head_dim),
    ];
    constants.extend_from_slice(more);
    ShaderVariant {
        entry,
        dtype: desc.dtype,
        stage: desc.dtype,
        coop: Some(CoopHeader {
            frag: MATRIX_FRAG,
            q_frags: desc.head_dim / MATRIX_FRAG,
            o_frags: desc.v_head_dim / MATRIX_FRAG,
            q_parts: 1,
            word_staging: false,
            split: false,
        }),
        constants,
    }
}

/// The split pass of the cooperative-matrix decode kernel.
/// `ablate`: the split pass's profiling bits (see [`plan`](super::plan)).
pub(super) fn matrix_variant(desc: &AttentionDesc, t: &VectorTiles, ablate: u32) -> ShaderVariant {
    let shape = MatrixShape::new(desc);
    coop_decode_variant(
        KernelEntry::VectorCoop,
        desc,
        t.rows,
        &[
            ("NW", shape.subgroups),
            ("WG", shape.threads),
            ("BK", shape.keys),
            ("NKB", shape.keys / MATRIX_FRAG),
            ("KVE", shape.kv_elems(desc)),
            ("SB", shape.score_elems()),
            ("QR", shape.q_rows(desc)),
            ("KVO", shape.kv_offset(desc)),
            ("MASK_KIND", mask_kind(desc)),
            ("ABLATE", ablate),
        ],
    )
}
