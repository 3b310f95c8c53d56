//! The problem description: shapes, dtype, memory layouts, scale and mask, and the checks that
//! a description is consistent with itself (the checks against an adapter live in the planner).
//!
//! Logical shapes follow PyTorch's `scaled_dot_product_attention`:
//! `q` is `[batch, q_heads, q_len, head_dim]`, `k` is `[batch, kv_heads, kv_len, head_dim]`,
//! `v` is `[batch, kv_heads, kv_len, v_head_dim]`, the output `[batch, q_heads, q_len, v_head_dim]`.
//! Query head `h` reads key/value head `h / (q_heads / kv_heads)` (GQA; MQA when `kv_heads == 1`).

use std::fmt;

use crate::error::{Error, Result};

/// Element type of `q`, `k`, `v`, the output and an additive mask. Arithmetic is f32 for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// 32-bit float.
    F32,
    /// 16-bit float (needs the adapter feature `SHADER_F16`).
    F16,
}

impl DType {
    /// Bytes per element.
    pub fn size_bytes(self) -> u64 {
        match self {
            DType::F32 => 4,
            DType::F16 => 2,
        }
    }

    /// The WGSL scalar type name.
    pub fn wgsl(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.wgsl())
    }
}

/// `f16` or `f32` (also PyTorch's `float16`, `float32`).
impl std::str::FromStr for DType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "f16" | "float16" => Ok(DType::F16),
            "f32" | "float32" => Ok(DType::F32),
            _ => Err(Error::invalid("dtype", s, "must be f16 or f32")),
        }
    }
}

/// Which tensor of the problem a layout, buffer or error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tensor {
    /// Queries.
    Q,
    /// Keys.
    K,
    /// Values.
    V,
    /// The output.
    Out,
    /// A boolean or additive mask.
    Mask,
}

impl Tensor {
    /// The tensor's name as used in error messages, files and the CLI.
    pub fn name(self) -> &'static str {
        match self {
            Tensor::Q => "q",
            Tensor::K => "k",
            Tensor::V => "v",
            Tensor::Out => "out",
            Tensor::Mask => "mask",
        }
    }
}

/// Where the elements of a `[batch, heads, len, dim]` tensor live in its buffer, in elements.
///
/// The last dimension is always contiguous (stride 1); every other stride is free, so
/// `[B, H, L, D]`, `[B, L, H, D]` ("transposed") and a slice of a larger KV cache
/// (`seq_stride` of the cache, `kv_len` smaller than its capacity) are all described without copies.
/// A stride of 0 broadcasts (e.g. one K shared by every batch entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TensorLayout {
    /// Index of element `[0, 0, 0, 0]`.
    pub offset: u64,
    /// Elements between consecutive batch entries.
    pub batch_stride: u64,
    /// Elements between consecutive heads.
    pub head_stride: u64,
    /// Elements between consecutive sequence positions.
    pub seq_stride: u64,
}

impl TensorLayout {
    /// Contiguous `[batch, heads, len, dim]`. Strides past `u64::MAX` saturate (validation
    /// then rejects them).
    pub fn bhld(heads: u32, len: u32, dim: u32) -> Self {
        let (heads, len, dim) = (heads as u64, len as u64, dim as u64);
        TensorLayout {
            offset: 0,
            batch_stride: heads.saturating_mul(len).saturating_mul(dim),
            head_stride: len * dim,
            seq_stride: dim,
        }
    }

    /// Contiguous `[batch, len, heads, dim]` (PyTorch's `transpose(1, 2)` of BHLD).
    pub fn blhd(heads: u32, len: u32, dim: u32) -> Self {
        let (heads, len, dim) = (heads as u64, len as u64, dim as u64);
        TensorLayout {
            offset: 0,
            batch_stride: len.saturating_mul(heads).saturating_mul(dim),
            head_stride: dim,
            seq_stride: heads * dim,
        }
    }

    /// The same layout starting `offset` elements into the buffer.
    pub fn with_offset(mut self, offset: u64) -> Self {
        self.offset = offset;
        self
    }

    /// One past the largest element index this layout touches for the given extents, saturated
    /// at `u64::MAX` (0 when an extent is 0: nothing is touched).
    fn end(&self, batch: u32, heads: u32, len: u32, dim: u32) -> u64 {
        end_index(
            self.offset,
            [
                (batch, self.batch_stride),
                (heads, self.head_stride),
                (len, self.seq_stride),
            ],
            dim,
        )
    }
}

/// `offset + Σ (extent - 1) * stride + inner`, exactly (in u128) and saturated at `u64::MAX`,
/// or 0 when an extent is 0. Wrapping here would let a huge stride or offset pass the 32-bit
/// index check with a small sum while the kernels index far outside the buffer.
fn end_index(offset: u64, dims: [(u32, u64); 3], inner: u32) -> u64 {
    if inner == 0 || dims.iter().any(|&(extent, _)| extent == 0) {
        return 0;
    }
    let end = dims
        .iter()
        .map(|&(extent, stride)| (extent as u128 - 1) * stride as u128)
        .sum::<u128>()
        + offset as u128
        + inner as u128;
    u64::try_from(end).unwrap_or(u64::MAX)
}

/// Where the elements of a boolean or additive mask live, in elements of the mask's type.
///
/// The mask is logically `[batch, q_heads, q_len, kv_len]`; the key dimension is contiguous and a
/// stride of 0 broadcasts (a `[1, 1, q_len, kv_len]` mask has `batch_stride = head_stride = 0`,
/// a key-padding mask `[batch, 1, 1, kv_len]` has `head_stride = q_stride = 0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MaskLayout {
    /// Index of element `[0, 0, 0, 0]`.
    pub offset: u64,
    /// Elements between batch entries (0 broadcasts).
    pub batch_stride: u64,
    /// Elements between query heads (0 broadcasts).
    pub head_stride: u64,
    /// Elements between query rows (0 broadcasts).
    pub q_stride: u64,
}

impl MaskLayout {
    /// A dense mask of shape `[b, h, q_len, kv_len]` where `b` is 1 (broadcast) or `batch` and
    /// `h` is 1 (broadcast) or `q_heads`, as given by the two flags.
    pub fn dense(per_batch: bool, per_head: bool, q_heads: u32, q_len: u32, kv_len: u32) -> Self {
        let row = kv_len as u64;
        let head = q_len as u64 * row;
        let head_stride = if per_head { head } else { 0 };
        let batch_stride = if per_batch {
            head.saturating_mul(if per_head { q_heads as u64 } else { 1 })
        } else {
            0
        };
        MaskLayout {
            offset: 0,
            batch_stride,
            head_stride,
            q_stride: row,
        }
    }

    fn end(&self, batch: u32, q_heads: u32, q_len: u32, kv_len: u32) -> u64 {
        end_index(
            self.offset,
            [
                (batch, self.batch_stride),
                (q_heads, self.head_stride),
                (q_len, self.q_stride),
            ],
            kv_len,
        )
    }
}

/// How the causal diagonal is aligned when `q_len != kv_len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CausalAlignment {
    /// Query row `i` sees keys `j <= i + kv_len - q_len`: the last query sees every key
    /// (MLX, FlashAttention >= 2.1, decoding with a KV cache). The library default.
    BottomRight,
    /// Query row `i` sees keys `j <= i` (PyTorch's `is_causal=True`).
    TopLeft,
}

/// The mask added to (or selecting) the scaled scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mask {
    /// Every query sees every key.
    None,
    /// A causal mask with the given alignment; no mask buffer.
    Causal(CausalAlignment),
    /// A boolean mask, one byte per element (PyTorch's `bool` layout): non-zero = attend.
    Boolean(MaskLayout),
    /// An additive mask in the problem's dtype, added to `scale * q·k`; `-inf` excludes a key.
    Additive(MaskLayout),
}

impl Mask {
    /// The buffer layout, for the masks that read a buffer.
    pub fn layout(&self) -> Option<&MaskLayout> {
        match self {
            Mask::Boolean(l) | Mask::Additive(l) => Some(l),
            _ => None,
        }
    }

    /// A short name for tables and plans.
    pub fn name(&self) -> &'static str {
        match self {
            Mask::None => "none",
            Mask::Causal(CausalAlignment::BottomRight) => "causal",
            Mask::Causal(CausalAlignment::TopLeft) => "causal-tl",
            Mask::Boolean(_) => "bool",
            Mask::Additive(_) => "additive",
        }
    }
}

/// The largest head dimension the kernels support.
pub const MAX_HEAD_DIM: u32 = 256;

/// The longest `q_len` and `kv_len` the kernels support, 2^30: their tile counters and causal
/// indices are 32-bit (a `kv_len` near `u32::MAX`, possible with stride-0 K and V, would wrap a
/// tile counter and never end; one at or past 2^31 breaks the signed causal comparison).
pub const MAX_SEQ_LEN: u32 = 1 << 30;

/// A complete description of one attention problem.
///
/// Build one with [`AttentionDesc::new`] and the `with_*` methods; layouts left as `None` are
/// contiguous `[B, H, L, D]`.
///
/// ```
/// use wgpu_sdpa::{AttentionDesc, DType, Mask, CausalAlignment};
/// let desc = AttentionDesc::new(1, 32, 8, 128, 128, 64)
///     .with_dtype(DType::F16)
///     .with_mask(Mask::Causal(CausalAlignment::BottomRight));
/// assert!(desc.validate().is_ok());
/// assert_eq!(desc.group_size(), 4);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AttentionDesc {
    /// Batch size.
    pub batch: u32,
    /// Number of query heads (a multiple of `kv_heads`).
    pub q_heads: u32,
    /// Number of key/value heads.
    pub kv_heads: u32,
    /// Query sequence length.
    pub q_len: u32,
    /// Key/value sequence length.
    pub kv_len: u32,
    /// Head dimension of `q` and `k`: a multiple of 8 from 8 to 256.
    pub head_dim: u32,
    /// Head dimension of `v` and the output: a multiple of 8 from 8 to 256.
    pub v_head_dim: u32,
    /// Element type of every tensor.
    pub dtype: DType,
    /// Layout of `q`, `None` = contiguous BHLD.
    pub q_layout: Option<TensorLayout>,
    /// Layout of `k`, `None` = contiguous BHLD.
    pub k_layout: Option<TensorLayout>,
    /// Layout of `v`, `None` = contiguous BHLD.
    pub v_layout: Option<TensorLayout>,
    /// Layout of the output, `None` = contiguous BHLD.
    pub out_layout: Option<TensorLayout>,
    /// Multiplier of `q·k`; `None` = `1 / sqrt(head_dim)`.
    pub scale: Option<f32>,
    /// The mask.
    pub mask: Mask,
}

impl AttentionDesc {
    /// A description with f32, contiguous BHLD layouts, the default scale and no mask.
    pub fn new(
        batch: u32,
        q_heads: u32,
        kv_heads: u32,
        q_len: u32,
        kv_len: u32,
        head_dim: u32,
    ) -> Self {
        AttentionDesc {
            batch,
            q_heads,
            kv_heads,
            q_len,
            kv_len,
            head_dim,
            v_head_dim: head_dim,
            dtype: DType::F32,
            q_layout: None,
            k_layout: None,
            v_layout: None,
            out_layout: None,
            scale: None,
            mask: Mask::None,
        }
    }

    /// Sets the dtype.
    pub fn with_dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// Sets the head dimension of `v` and the output.
    pub fn with_v_head_dim(mut self, v_head_dim: u32) -> Self {
        self.v_head_dim = v_head_dim;
        self
    }

    /// Sets the scale.
    pub fn with_scale(mut self, scale: f32) -> Self {
        self.scale = Some(scale);
        self
    }

    /// Sets the mask.
    pub fn with_mask(mut self, mask: Mask) -> Self {
        self.mask = mask;
        self
    }

    /// Sets the layout of one tensor (`Tensor::Mask` is set through [`Mask`] instead and is ignored).
    pub fn with_layout(mut self, tensor: Tensor, layout: TensorLayout) -> Self {
        match tensor {
            Tensor::Q => self.q_layout = Some(layout),
            Tensor::K => self.k_layout = Some(layout),
            Tensor::V => self.v_layout = Some(layout),
            Tensor::Out => self.out_layout = Some(layout),
            Tensor::Mask => {}
        }
        self
    }

    /// Makes `q`, `k`, `v` and the output contiguous `[B, L, H, D]` (the seed's `tpose = 1`).
    pub fn transposed(self) -> Self {
        let (hq, hkv, lq, lk, d, dv) = (
            self.q_heads,
            self.kv_heads,
            self.q_len,
            self.kv_len,
            self.head_dim,
            self.v_head_dim,
        );
        self.with_layout(Tensor::Q, TensorLayout::blhd(hq, lq, d))
            .with_layout(Tensor::K, TensorLayout::blhd(hkv, lk, d))
            .with_layout(Tensor::V, TensorLayout::blhd(hkv, lk, dv))
            .with_layout(Tensor::Out, TensorLayout::blhd(hq, lq, dv))
    }

    /// Query heads per key/value head.
    pub fn group_size(&self) -> u32 {
        self.q_heads / self.kv_heads.max(1)
    }

    /// The scale actually used.
    pub fn effective_scale(&self) -> f32 {
        self.scale
            .unwrap_or_else(|| 1.0 / (self.head_dim as f32).sqrt())
    }

    /// `(heads, len, dim)` of a tensor.
    pub fn extents(&self, tensor: Tensor) -> (u32, u32, u32) {
        match tensor {
            Tensor::Q => (self.q_heads, self.q_len, self.head_dim),
            Tensor::K => (self.kv_heads, self.kv_len, self.head_dim),
            Tensor::V => (self.kv_heads, self.kv_len, self.v_head_dim),
            Tensor::Out => (self.q_heads, self.q_len, self.v_head_dim),
            Tensor::Mask => (self.q_heads, self.q_len, self.kv_len),
        }
    }

    /// The layout of a tensor, resolving `None` to contiguous BHLD.
    /// For [`Tensor::Mask`] the mask's layout is mapped onto the same four numbers.
    pub fn layout(&self, tensor: Tensor) -> TensorLayout {
        let given = match tensor {
            Tensor::Q => self.q_layout,
            Tensor::K => self.k_layout,
            Tensor::V => self.v_layout,
            Tensor::Out => self.out_layout,
            Tensor::Mask => self.mask.layout().map(|m| TensorLayout {
                offset: m.offset,
                batch_stride: m.batch_stride,
                head_stride: m.head_stride,
                seq_stride: m.q_stride,
            }),
        };
        let (heads, len, dim) = self.extents(tensor);
        given.unwrap_or_else(|| TensorLayout::bhld(heads, len, dim))
    }

    /// Bytes per element of a tensor (a boolean mask has one byte per element).
    pub fn element_bytes(&self, tensor: Tensor) -> u64 {
        match (tensor, &self.mask) {
            (Tensor::Mask, Mask::Boolean(_)) => 1,
            _ => self.dtype.size_bytes(),
        }
    }

    /// Elements a buffer (or host slice) of this tensor must hold: one past the largest index
    /// the layout touches. 0 for a mask kind without a buffer.
    pub fn required_elements(&self, tensor: Tensor) -> u64 {
        if tensor == Tensor::Mask {
            return match self.mask.layout() {
                Some(m) => m.end(self.batch, self.q_heads, self.q_len, self.kv_len),
                None => 0,
            };
        }
        let (heads, len, dim) = self.extents(tensor);
        self.layout(tensor).end(self.batch, heads, len, dim)
    }

    /// Bytes a buffer of this tensor must hold (saturated at `u64::MAX`).
    pub fn required_bytes(&self, tensor: Tensor) -> u64 {
        self.required_elements(tensor)
            .saturating_mul(self.element_bytes(tensor))
    }

    /// Floating-point operations of the problem, `4 * B * Hq * Lq * Lk * D`-style (2 per
    /// multiply-add, both matmuls), counting only the keys a causal mask leaves visible.
    pub fn flops(&self) -> f64 {
        let rows = self.batch as f64 * self.q_heads as f64;
        let visible = match self.mask {
            Mask::Causal(align) => {
                let shift = match align {
                    CausalAlignment::BottomRight => self.kv_len as i128 - self.q_len as i128,
                    CausalAlignment::TopLeft => 0,
                };
                // Σ_{i < q_len} clamp(i + shift + 1, 0, kv_len) in closed form (a loop over the
                // rows took seconds for q_len near u32::MAX): F(x) = Σ_{t=1..x} min(t, kv_len).
                let lk = self.kv_len as i128;
                let f = |x: i128| -> i128 {
                    if x <= 0 {
                        0
                    } else if x <= lk {
                        x * (x + 1) / 2
                    } else {
                        lk * (lk + 1) / 2 + (x - lk) * lk
                    }
                };
                (f(shift + self.q_len as i128) - f(shift)) as f64
            }
            _ => self.q_len as f64 * self.kv_len as f64,
        };
        2.0 * rows * visible * (self.head_dim as f64 + self.v_head_dim as f64)
    }

    /// Checks that the description is consistent with itself: non-zero sizes, sequence lengths up
    /// to [`MAX_SEQ_LEN`], divisible heads, supported head dims, a finite scale whose log2 form
    /// (`scale * log2(e)`, what the kernels multiply by) is finite too, layouts with a contiguous
    /// last dimension whose indices fit the kernels' 32-bit arithmetic, and an output whose
    /// elements do not overlap.
    pub fn validate(&self) -> Result<()> {
        for (field, value) in [
            ("batch", self.batch),
            ("q_heads", self.q_heads),
            ("kv_heads", self.kv_heads),
            ("q_len", self.q_len),
            ("kv_len", self.kv_len),
        ] {
            if value == 0 {
                return Err(Error::invalid(field, value, "must be at least 1"));
            }
        }
        for (field, value) in [("q_len", self.q_len), ("kv_len", self.kv_len)] {
            if value > MAX_SEQ_LEN {
                return Err(Error::limit(
                    field,
                    value as u64,
                    "MAX_SEQ_LEN (32-bit tile counters and causal indices of the kernels)",
                    MAX_SEQ_LEN as u64,
                ));
            }
        }
        if !self.q_heads.is_multiple_of(self.kv_heads) {
            return Err(Error::invalid(
                "q_heads",
                self.q_heads,
                format!("must be a multiple of kv_heads = {}", self.kv_heads),
            ));
        }
        for (field, value) in [("head_dim", self.head_dim), ("v_head_dim", self.v_head_dim)] {
            if value == 0 || value % 8 != 0 || value > MAX_HEAD_DIM {
                return Err(Error::invalid(
                    field,
                    value,
                    format!("must be a multiple of 8 from 8 to {MAX_HEAD_DIM}"),
                ));
            }
        }
        if let Some(scale) = self.scale {
            if !scale.is_finite() {
                return Err(Error::invalid("scale", scale, "must be finite"));
            }
            if !(scale * std::f32::consts::LOG2_E).is_finite() {
                return Err(Error::invalid(
                    "scale",
                    scale,
                    format!(
                        "|scale| must be at most f32::MAX / log2(e) = {:e} (the kernels use scale * log2(e))",
                        f32::MAX / std::f32::consts::LOG2_E
                    ),
                ));
            }
        }
        for tensor in [Tensor::Q, Tensor::K, Tensor::V, Tensor::Out, Tensor::Mask] {
            let end = self.required_elements(tensor);
            if end > u32::MAX as u64 {
                return Err(Error::limit(
                    format!("{} elements (offset + strides * extents)", tensor.name()),
                    end,
                    "32-bit element index of the kernels",
                    u32::MAX as u64,
                ));
            }
        }
        self.check_output_does_not_overlap()
    }

    /// Two output elements in one place would make the result depend on the order the GPU
    /// writes them in: reject layouts where the strides let that happen.
    fn check_output_does_not_overlap(&self) -> Result<()> {
        let l = self.layout(Tensor::Out);
        // (stride, extent, name) of every dimension longer than 1, innermost first.
        let mut dims: Vec<(u64, u64, &str)> = [
            (1, self.v_head_dim as u64, "dim"),
            (l.seq_stride, self.q_len as u64, "out.seq_stride"),
            (l.head_stride, self.q_heads as u64, "out.head_stride"),
            (l.batch_stride, self.batch as u64, "out.batch_stride"),
        ]
        .into_iter()
        .filter(|d| d.1 > 1)
        .collect();
        dims.sort_by_key(|d| d.0);
        let mut span = 1u64; // elements covered by the dimensions inside the current one
        for (stride, extent, name) in dims {
            if name != "dim" && stride < span {
                return Err(Error::invalid(
                    name,
                    stride,
                    format!("output elements would overlap: must be at least {span}"),
                ));
            }
            span += stride * (extent - 1);
        }
        Ok(())
    }
}

impl fmt::Display for AttentionDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "B={} Hq={} Hkv={} Lq={} Lk={} D={} Dv={} {} mask={}",
            self.batch,
            self.q_heads,
            self.kv_heads,
            self.q_len,
            self.kv_len,
            self.head_dim,
            self.v_head_dim,
            self.dtype,
            self.mask.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes_parse_from_their_names() {
        for d in [DType::F16, DType::F32] {
            assert_eq!(d.to_string().parse::<DType>().unwrap(), d);
        }
        assert_eq!("float16".parse::<DType>().unwrap(), DType::F16);
        assert_eq!("float32".parse::<DType>().unwrap(), DType::F32);
        let e = "bf16".parse::<DType>().unwrap_err().to_string();
        assert!(e.contains("dtype") && e.contains("bf16"), "{e}");
    }

    #[test]
    fn blhd_layout_requires_the_same_elements_as_bhld() {
        let d = AttentionDesc::new(2, 4, 2, 5, 7, 16);
        let t = d.clone().transposed();
        for tensor in [Tensor::Q, Tensor::K, Tensor::V, Tensor::Out] {
            assert_eq!(d.required_elements(tensor), t.required_elements(tensor));
        }
        assert_eq!(d.required_elements(Tensor::Q), 2 * 4 * 5 * 16);
    }

    #[test]
    fn overlapping_output_is_rejected() {
        let d = AttentionDesc::new(1, 2, 2, 4, 4, 8).with_layout(
            Tensor::Out,
            TensorLayout {
                offset: 0,
                batch_stride: 64,
                head_stride: 8,
                seq_stride: 8,
            },
        );
        let e = d.validate().unwrap_err();
        assert_eq!(e.field(), Some("out.head_stride"));
    }

    #[test]
    fn index_sums_that_wrap_u64_are_rejected() {
        // offset + head_stride wraps to 2^64 + 100 + ...: a wrapping sum would be small and pass
        // the 32-bit check while the kernels start reading at offset mod 2^32 (about 4e9).
        let d = AttentionDesc::new(1, 2, 2, 4, 4, 8).with_layout(
            Tensor::K,
            TensorLayout {
                offset: u64::MAX - (1 << 20) + 1,
                batch_stride: 0,
                head_stride: (1 << 20) + 100,
                seq_stride: 8,
            },
        );
        assert_eq!(d.required_elements(Tensor::K), u64::MAX);
        let e = d.validate().unwrap_err();
        assert_eq!(e.field(), Some("k elements (offset + strides * extents)"));
        // Default layouts of absurd sizes: heads * len * dim is past u64 too.
        let d = AttentionDesc::new(3, 1 << 31, 1 << 31, 1 << 30, 1 << 30, 256);
        assert_eq!(d.required_elements(Tensor::Q), u64::MAX);
        assert!(d.validate().is_err());
        // Zero extents need no elements (and do not underflow).
        assert_eq!(
            AttentionDesc::new(0, 1, 1, 1, 1, 8).required_elements(Tensor::Q),
            0
        );
    }

    #[test]
    fn sequence_lengths_past_the_kernels_counters_are_rejected() {
        // Stride-0 K and V make any kv_len cheap in memory; the kernels' u32 tile counter would
        // wrap past u32::MAX - BK and loop forever.
        let broadcast = TensorLayout {
            offset: 0,
            batch_stride: 0,
            head_stride: 0,
            seq_stride: 0,
        };
        let d = AttentionDesc::new(1, 1, 1, 1, u32::MAX, 8)
            .with_layout(Tensor::K, broadcast)
            .with_layout(Tensor::V, broadcast);
        assert_eq!(d.validate().unwrap_err().field(), Some("kv_len"));
        let mut ok = d.clone();
        ok.kv_len = MAX_SEQ_LEN;
        assert!(ok.validate().is_ok());
    }

    #[test]
    fn scales_whose_log2_form_overflows_are_rejected() {
        let d = AttentionDesc::new(1, 1, 1, 4, 4, 8);
        assert!(d.clone().with_scale(2.4e38).validate().is_err());
        assert!(d.clone().with_scale(-2.4e38).validate().is_err());
        assert!(d.clone().with_scale(2.3e38).validate().is_ok());
        assert!(d.with_scale(0.0).validate().is_ok());
    }

    #[test]
    fn causal_flops_match_a_count_of_visible_keys_and_are_instant_for_huge_lengths() {
        for (lq, lk) in [(1, 1), (4, 4), (3, 7), (7, 3), (1, 100), (100, 1), (33, 65)] {
            for align in [CausalAlignment::BottomRight, CausalAlignment::TopLeft] {
                let d = AttentionDesc::new(1, 1, 1, lq, lk, 8).with_mask(Mask::Causal(align));
                let shift = match align {
                    CausalAlignment::BottomRight => lk as i64 - lq as i64,
                    CausalAlignment::TopLeft => 0,
                };
                let visible: i64 = (0..lq as i64)
                    .flat_map(|i| (0..lk as i64).filter(move |&j| j <= i + shift))
                    .count() as i64;
                assert_eq!(d.flops(), visible as f64 * 32.0, "{lq}x{lk} {align:?}");
            }
        }
        let huge = AttentionDesc::new(1, 1, 1, u32::MAX, u32::MAX, 8)
            .with_mask(Mask::Causal(CausalAlignment::TopLeft));
        let n = u32::MAX as f64;
        assert_eq!(huge.flops(), n * (n + 1.0) / 2.0 * 32.0);
    }

    #[test]
    fn causal_flops_count_visible_keys() {
        let d = AttentionDesc::new(1, 1, 1, 4, 4, 8)
            .with_mask(Mask::Causal(CausalAlignment::BottomRight));
        // 1 + 2 + 3 + 4 visible keys, 2 * (8 + 8) flops each
        assert_eq!(d.flops(), 10.0 * 32.0);
    }
}
