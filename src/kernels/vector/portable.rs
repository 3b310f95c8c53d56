//! Host side of `wgsl/vector.wgsl`, the portable decode kernel (f32 math) that takes what the
//! other decode kernels do not: its reduction array and workgroup memory, tiles and split pass.

use super::splits::key_splits_for;
use super::{word_loads, VectorTiles, MAX_ROWS};
use crate::capabilities::Capabilities;
use crate::desc::AttentionDesc;
use crate::error::{Error, Result};
use crate::planner::mask_kind;
use crate::shader::{KernelEntry, ShaderVariant};

/// The shape of a decode workgroup that sizes its reduction array: what [`red_slots`] needs of
/// [`VectorTiles`] before the splits are chosen.
#[derive(Debug, Clone, Copy)]
struct ReductionShape {
    rows: u32,
    block_k: u32,
    workgroup_size: u32,
    lanes_per_key: u32,
    key_groups: u32,
    merge_vec4s: u32,
}

impl From<&VectorTiles> for ReductionShape {
    fn from(t: &VectorTiles) -> Self {
        ReductionShape {
            rows: t.rows,
            block_k: t.block_k,
            workgroup_size: t.workgroup_size,
            lanes_per_key: t.lanes_per_key,
            key_groups: t.key_groups,
            merge_vec4s: t.merge_vec4s,
        }
    }
}

/// `wgsl/vector.wgsl`'s `RED`: f32 slots of its reduction array (step 1's partial dot products,
/// the key groups' sums, their outputs `merge` vec4s at a time).
fn red_slots(t: ReductionShape) -> u32 {
    (t.lanes_per_key * t.rows * t.block_k)
        .max(4 * t.key_groups * t.rows.div_ceil(4))
        .max(4 * t.workgroup_size * t.merge_vec4s)
}

/// Workgroup memory the decode kernel grows into to merge its outputs in fewer passes (more
/// would cost workgroups per core on GPUs with little of it). H200, 32/8 heads, d128, f16, µs a
/// call at kv 256 / 4096 / 16384 / 32768 / 131072, by vec4s merged per pass: 1 (7.4 KB) 15 / 20 /
/// 40 / 60 / 177; 2 (11.5 KB) 14 / 19 / 40 / 60 / 180; 4 (19.7 KB, taken) 14 / 19 / 38 / 58 /
/// 176; 8 (36 KB, 147 registers instead of 128) 13 / 18 / 47 / 76 / 235.
const MERGE_BUDGET_BYTES: u32 = 20 * 1024;

/// `q_s`, `red_s`, `p_s`, `s_s`, `m_s`, `tmax_s`, `flag_s` and `fin_s` of `wgsl/vector.wgsl`.
fn workgroup_bytes(desc: &AttentionDesc, rows: u32, block_k: u32, red: u32) -> u32 {
    let blocks = rows.div_ceil(4);
    rows * desc.head_dim * 4
        + red * 4
        + 2 * block_k * blocks * 16
        + 2 * blocks * 16
        + 8 * blocks * 4
        + 2 * 4
        + 64 * 4
}

/// Tiles and splits of the portable decode kernel (`wgsl/vector.wgsl`, f32 math), which serves
/// what the other decode kernels do not take: the rest of [`fit_tiles`](super::fit_tiles) after
/// its checks and the choice of kernel.
pub(super) fn portable_tiles(
    caps: &Capabilities,
    desc: &AttentionDesc,
    splits: Option<u32>,
) -> Result<VectorTiles> {
    use crate::tune::knob;
    let workgroup_size = knob("decode_wg")
        .filter(|w| w.is_power_of_two() && (64..=1024).contains(w))
        .unwrap_or(256)
        .min(caps.max_workgroup_threads());
    let d8 = desc.head_dim / 8;
    let dv8 = desc.v_head_dim / 8;
    if workgroup_size < dv8 {
        return Err(Error::invalid(
            "v_head_dim",
            desc.v_head_dim,
            format!("the decode kernel needs v_head_dim / 8 <= {workgroup_size} threads"),
        ));
    }
    let chunks_per_lane = knob("decode_cpl")
        .filter(|c| [1, 2, 4].contains(c))
        .unwrap_or(4);
    let lanes_per_key = d8.div_ceil(chunks_per_lane).min(workgroup_size);
    let block_k = workgroup_size / lanes_per_key;
    // At most 4 query vectors per thread of a key group (8 output columns each); also at most 4
    // per v_head_dim / 4 threads, the bound the kernel before this one had (tests check it).
    let max_rows = MAX_ROWS.min(4 * (workgroup_size / (dv8 * 2)));
    // The most query vectors per workgroup (each K/V load serves them all) that fit the
    // workgroup memory; fewer where it is small.
    let all_rows = (desc.group_size() * desc.q_len).min(max_rows);
    // The key groups and workgroup bytes of `rows` query vectors merged `merge_vec4s` at a time.
    let shape = |rows: u32, merge_vec4s: u32| {
        let key_groups = workgroup_size / (dv8 * rows.div_ceil(4));
        let red = red_slots(ReductionShape {
            rows,
            block_k,
            workgroup_size,
            lanes_per_key,
            key_groups,
            merge_vec4s,
        });
        (key_groups, workgroup_bytes(desc, rows, block_k, red))
    };
    let rows = std::iter::successors(Some(all_rows), |&r| (r > 1).then_some(r / 2))
        .find(|&rows| shape(rows, 1).1 <= caps.max_workgroup_storage_bytes)
        .ok_or_else(|| {
            Error::limit(
                "decode kernel workgroup memory",
                shape(1, 1).1 as u64,
                "max_compute_workgroup_storage_size",
                caps.max_workgroup_storage_bytes as u64,
            )
        })?;
    // The fewest merge passes within the budget (knob `decode_merge`: 1, 2, 4 or 8 vec4s a pass,
    // within the adapter's limit).
    let budget = match knob("decode_merge") {
        Some(_) => caps.max_workgroup_storage_bytes,
        None => MERGE_BUDGET_BYTES.min(caps.max_workgroup_storage_bytes),
    };
    let merge_vec4s = [8, 4, 2, 1]
        .into_iter()
        .filter(|&mv| knob("decode_merge").is_none_or(|k| mv <= k))
        .find(|&mv| mv == 1 || shape(rows, mv).1 <= budget)
        .unwrap_or(1);
    let (key_groups, bytes) = shape(rows, merge_vec4s);
    let (kv_splits, split_len) = key_splits_for(caps, desc, rows, block_k, splits)?;
    let early_v =
        knob("decode_vearly").map_or(caps.device_type != wgpu::DeviceType::Cpu, |v| v == 1);
    let vectorized = word_loads(desc);
    let k_ahead = knob("decode_pf").map_or(
        desc.dtype == crate::desc::DType::F16
            && vectorized
            && early_v
            && rows <= 4
            && desc.head_dim == 128
            && desc.v_head_dim == 128,
        |v| v == 1,
    );
    Ok(VectorTiles {
        lanes_per_key,
        key_groups,
        merge_vec4s,
        early_v,
        vectorized,
        k_ahead,
        ..VectorTiles::base(rows, block_k, workgroup_size, (kv_splits, split_len), bytes)
    })
}

/// The split pass of the portable decode kernel. `split_ablate`: the split pass's profiling bits
/// (see [`plan`](super::plan)).
pub(super) fn portable_variant(
    desc: &AttentionDesc,
    t: &VectorTiles,
    split_ablate: u32,
) -> ShaderVariant {
    ShaderVariant::new(
        KernelEntry::Vector,
        desc.dtype,
        vec![
            ("RG", t.rows),
            ("BK", t.block_k),
            ("HEAD_DIM", desc.head_dim),
            ("V_HEAD_DIM", desc.v_head_dim),
            ("WG", t.workgroup_size),
            ("LPK", t.lanes_per_key),
            ("NKG", t.key_groups),
            ("VEC", t.vectorized as u32),
            ("ELEM_BYTES", desc.dtype.size_bytes() as u32),
            ("RED", red_slots(t.into())),
            ("MV", t.merge_vec4s),
            ("VEARLY", t.early_v as u32),
            ("PF", t.k_ahead as u32),
            ("MASK_KIND", mask_kind(desc)),
            ("ABLATE", split_ablate),
        ],
    )
}
