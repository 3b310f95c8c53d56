//! The one plain struct every kernel reads (`wgsl/params.wgsl` declares its WGSL twin).

use bytemuck::{Pod, Zeroable};

use crate::desc::{AttentionDesc, CausalAlignment, Mask, Tensor, TensorLayout};

/// Shapes, strides (in elements) and scalars of one problem, as a uniform buffer.
/// Field order and types must match `struct Params` in `wgsl/params.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub(crate) struct Params {
    pub batch: u32,
    pub q_heads: u32,
    pub kv_heads: u32,
    /// `q_heads / kv_heads`.
    pub group: u32,
    pub q_len: u32,
    pub kv_len: u32,
    pub head_dim: u32,
    pub v_head_dim: u32,
    /// `[offset, batch, head, seq]` strides of q, k, v, out and the mask (mask: `[offset, batch, head, q]`).
    pub q: [u32; 4],
    pub k: [u32; 4],
    pub v: [u32; 4],
    pub out: [u32; 4],
    pub mask: [u32; 4],
    /// `scale * log2(e)`: scores are kept in log2 units so the softmax uses `exp2`.
    pub scale_log2: f32,
    /// Row `i` sees keys `j <= i + causal_shift` (`kv_len - q_len` bottom-right, 0 top-left).
    pub causal_shift: i32,
    /// First `b * q_heads + h` of this dispatch (the unfused path runs heads in chunks).
    pub head_base: u32,
    /// Number of `(b, h)` pairs of this dispatch.
    pub head_count: u32,
    /// KV splits of the decode kernel (1 elsewhere).
    pub kv_splits: u32,
    /// Keys per KV split of the decode kernel (`kv_len` elsewhere).
    pub split_len: u32,
    /// Padding to the 16-byte size of a uniform struct.
    pub _pad: [u32; 2],
}

/// A layout as four u32s. Strides of dimensions of extent 1 are never multiplied by a non-zero
/// index, so they are stored as 0 (they may not fit 32 bits; everything else was checked to).
fn pack(layout: TensorLayout, batch: u32, heads: u32, len: u32) -> [u32; 4] {
    let s = |stride: u64, extent: u32| if extent > 1 { stride as u32 } else { 0 };
    [
        layout.offset as u32,
        s(layout.batch_stride, batch),
        s(layout.head_stride, heads),
        s(layout.seq_stride, len),
    ]
}

impl Params {
    /// The same params for the `head_count` heads from `head_base` on.
    pub fn for_heads(mut self, head_base: u32, head_count: u32) -> Self {
        self.head_base = head_base;
        self.head_count = head_count;
        self
    }

    /// The same params with the KV range split into `kv_splits` pieces of `split_len` keys.
    pub fn with_splits(mut self, kv_splits: u32, split_len: u32) -> Self {
        self.kv_splits = kv_splits;
        self.split_len = split_len;
        self
    }

    /// Params of a validated description.
    pub fn new(desc: &AttentionDesc) -> Self {
        let layout = |t: Tensor| {
            let (heads, len, _) = desc.extents(t);
            pack(desc.layout(t), desc.batch, heads, len)
        };
        let causal_shift = match desc.mask {
            Mask::Causal(CausalAlignment::BottomRight) => desc.kv_len as i64 - desc.q_len as i64,
            _ => 0,
        };
        Params {
            batch: desc.batch,
            q_heads: desc.q_heads,
            kv_heads: desc.kv_heads,
            group: desc.group_size(),
            q_len: desc.q_len,
            kv_len: desc.kv_len,
            head_dim: desc.head_dim,
            v_head_dim: desc.v_head_dim,
            q: layout(Tensor::Q),
            k: layout(Tensor::K),
            v: layout(Tensor::V),
            out: layout(Tensor::Out),
            mask: if desc.mask.layout().is_some() {
                layout(Tensor::Mask)
            } else {
                [0; 4]
            },
            scale_log2: desc.effective_scale() * std::f32::consts::LOG2_E,
            causal_shift: causal_shift.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            head_base: 0,
            head_count: desc.batch * desc.q_heads,
            kv_splits: 1,
            split_len: desc.kv_len,
            _pad: [0; 2],
        }
    }
}
