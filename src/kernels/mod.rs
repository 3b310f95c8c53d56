//! One module per kernel family. Each says which shader variants it needs for a description,
//! with which grids; [`crate::Attention`] compiles them through the pipeline cache and records them.

pub mod fused;
pub mod fused_coop;
pub mod unfused;
pub mod vector;

use crate::shader::ShaderVariant;

/// The one dispatch of a fused kernel: a workgroup per `block_q` query rows of each (batch,
/// query head), checked against the adapter's grid limit.
pub(crate) fn per_query_block(
    caps: &crate::capabilities::Capabilities,
    desc: &crate::desc::AttentionDesc,
    variant: ShaderVariant,
    block_q: u32,
) -> crate::error::Result<Vec<Dispatch>> {
    let dispatch = Dispatch {
        workgroups: [desc.q_len.div_ceil(block_q), desc.q_heads, desc.batch],
        head_base: 0,
        head_count: desc.batch * desc.q_heads,
        splits: None,
        variant,
    };
    crate::planner::check_grid(caps, dispatch.variant.entry.name(), dispatch.workgroups)?;
    Ok(vec![dispatch])
}

/// One dispatch of a plan: the variant and its grid of workgroups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// The shader variant.
    pub variant: ShaderVariant,
    /// Workgroups along x, y, z.
    pub workgroups: [u32; 3],
    /// The `batch * q_heads + head` indices `head_base..head_base + head_count` the dispatch
    /// covers: the unfused path runs the heads in chunks whose score matrices fit one binding;
    /// other kernels cover all heads.
    pub head_base: u32,
    /// See `head_base`.
    pub head_count: u32,
    /// `(kv_splits, split_len)` of the decode kernel's passes.
    pub splits: Option<(u32, u32)>,
}
