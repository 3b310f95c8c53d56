//! The f64 CPU reference of exactly the semantics the kernels implement, and the comparison the
//! tests and `sdpa check` use.
//!
//! Semantics: `out[b, h, i] = Σ_j p_j v[b, h / g, j] / Σ_j p_j` with
//! `p_j = exp(s_j - max_j s_j)` over the keys the mask leaves visible and
//! `s_j = scale * q[b, h, i] · k[b, h / g, j] (+ additive mask)`. A key is excluded by a false
//! boolean entry, by the causal mask, or by an additive `-inf`. A row with every key excluded is
//! all zeros. (The kernels also clamp scores below `-1e30 / log2(e)` to that value, which changes
//! nothing for any mask a user would write.)

use crate::desc::{AttentionDesc, CausalAlignment, Mask, Tensor};

/// A mask for the reference.
#[derive(Debug, Clone, Copy)]
pub enum RefMask<'a> {
    /// `true` = attend, laid out as [`Mask::Boolean`] says.
    Boolean(&'a [bool]),
    /// Added to the scaled scores, laid out as [`Mask::Additive`] says.
    Additive(&'a [f64]),
}

/// Computes attention in f64. Slices are laid out as `desc` says; the result has
/// `desc.required_elements(Tensor::Out)` elements, those the output layout does not touch zero.
///
/// # Panics
/// If a slice is shorter than its layout needs or the mask does not match `desc.mask`
/// (the reference is for tests; the library itself never panics on input).
pub fn attention_reference(
    desc: &AttentionDesc,
    q: &[f64],
    k: &[f64],
    v: &[f64],
    mask: Option<RefMask<'_>>,
) -> Vec<f64> {
    let (ql, kl, vl, ol) = (
        desc.layout(Tensor::Q),
        desc.layout(Tensor::K),
        desc.layout(Tensor::V),
        desc.layout(Tensor::Out),
    );
    let mask_layout = desc.mask.layout().copied();
    let scale = desc.effective_scale() as f64;
    let shift: i64 = match desc.mask {
        Mask::Causal(CausalAlignment::BottomRight) => desc.kv_len as i64 - desc.q_len as i64,
        _ => 0,
    };
    let (d, dv, lk) = (
        desc.head_dim as usize,
        desc.v_head_dim as usize,
        desc.kv_len as usize,
    );
    let mut out = vec![0.0; desc.required_elements(Tensor::Out) as usize];
    let mut scores = vec![0.0f64; lk];
    let mut visible = vec![false; lk];
    for b in 0..desc.batch as u64 {
        for h in 0..desc.q_heads as u64 {
            let kvh = h / desc.group_size() as u64;
            for i in 0..desc.q_len as u64 {
                let q_at =
                    (ql.offset + b * ql.batch_stride + h * ql.head_stride + i * ql.seq_stride)
                        as usize;
                let q_row = &q[q_at..q_at + d];
                for j in 0..lk {
                    let k_at = (kl.offset
                        + b * kl.batch_stride
                        + kvh * kl.head_stride
                        + j as u64 * kl.seq_stride) as usize;
                    let dot: f64 = q_row
                        .iter()
                        .zip(&k[k_at..k_at + d])
                        .map(|(a, b)| a * b)
                        .sum();
                    let mut s = scale * dot;
                    let mut keep = true;
                    if let Mask::Causal(_) = desc.mask {
                        keep = (j as i64) <= i as i64 + shift;
                    }
                    if let Some(ml) = mask_layout {
                        let at = (ml.offset
                            + b * ml.batch_stride
                            + h * ml.head_stride
                            + i * ml.q_stride) as usize
                            + j;
                        match mask.expect("the description has a mask buffer") {
                            RefMask::Boolean(m) => keep = m[at],
                            RefMask::Additive(m) => {
                                keep = m[at] != f64::NEG_INFINITY;
                                s += m[at];
                            }
                        }
                    }
                    scores[j] = s;
                    visible[j] = keep;
                }
                let max = (0..lk)
                    .filter(|&j| visible[j])
                    .map(|j| scores[j])
                    .fold(f64::NEG_INFINITY, f64::max);
                let o_at =
                    (ol.offset + b * ol.batch_stride + h * ol.head_stride + i * ol.seq_stride)
                        as usize;
                if max == f64::NEG_INFINITY {
                    continue; // every key excluded: zeros
                }
                let mut sum = 0.0;
                let mut acc = vec![0.0f64; dv];
                for j in (0..lk).filter(|&j| visible[j]) {
                    let p = (scores[j] - max).exp();
                    sum += p;
                    let v_at = (vl.offset
                        + b * vl.batch_stride
                        + kvh * vl.head_stride
                        + j as u64 * vl.seq_stride) as usize;
                    for (a, x) in acc.iter_mut().zip(&v[v_at..v_at + dv]) {
                        *a += p * x;
                    }
                }
                for (o, a) in out[o_at..o_at + dv].iter_mut().zip(acc) {
                    *o = a / sum;
                }
            }
        }
    }
    out
}

/// MLX's tolerance for a dtype: `max(|out - ref| - atol * |ref|) <= atol`.
pub fn default_atol(dtype: crate::DType) -> f64 {
    match dtype {
        crate::DType::F32 => 2e-5,
        crate::DType::F16 => 3e-4,
    }
}

/// How far a result is from the reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// `max(|out - ref| - atol * |ref|)` over the compared elements.
    pub worst_excess: f64,
    /// The largest absolute difference.
    pub max_abs_diff: f64,
    /// Index of the element with the largest excess.
    pub worst_index: usize,
    /// The tolerance used.
    pub atol: f64,
    /// Non-finite outputs where the reference is finite.
    pub non_finite: usize,
}

impl Comparison {
    /// MLX's criterion: the worst excess is at most `atol`, and no NaN/inf appeared.
    pub fn passed(&self) -> bool {
        self.worst_excess <= self.atol && self.non_finite == 0
    }
}

/// Compares `out` with `reference` at the output elements of `desc` (not the gaps of a strided
/// output layout).
pub fn compare(desc: &AttentionDesc, out: &[f64], reference: &[f64], atol: f64) -> Comparison {
    let ol = desc.layout(Tensor::Out);
    let mut c = Comparison {
        worst_excess: f64::NEG_INFINITY,
        max_abs_diff: 0.0,
        worst_index: 0,
        atol,
        non_finite: 0,
    };
    for b in 0..desc.batch as u64 {
        for h in 0..desc.q_heads as u64 {
            for i in 0..desc.q_len as u64 {
                let at = (ol.offset + b * ol.batch_stride + h * ol.head_stride + i * ol.seq_stride)
                    as usize;
                for idx in at..at + desc.v_head_dim as usize {
                    let (o, r) = (out[idx], reference[idx]);
                    if !o.is_finite() && r.is_finite() {
                        c.non_finite += 1;
                        continue;
                    }
                    let diff = (o - r).abs();
                    let excess = diff - atol * r.abs();
                    c.max_abs_diff = c.max_abs_diff.max(diff);
                    if excess > c.worst_excess {
                        c.worst_excess = excess;
                        c.worst_index = idx;
                    }
                }
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_key_returns_its_value() {
        let desc = AttentionDesc::new(1, 1, 1, 2, 1, 8);
        let q = vec![0.3; 16];
        let k = vec![0.7; 8];
        let v: Vec<f64> = (0..8).map(|x| x as f64).collect();
        let out = attention_reference(&desc, &q, &k, &v, None);
        assert_eq!(&out[..8], &v[..]);
        assert_eq!(&out[8..], &v[..]);
    }

    #[test]
    fn equal_scores_average_the_values() {
        let desc = AttentionDesc::new(1, 1, 1, 1, 4, 8);
        let q = vec![1.0; 8];
        let k = vec![0.5; 32];
        let v: Vec<f64> = (0..32).map(|x| (x / 8) as f64).collect(); // rows 0, 1, 2, 3
        let out = attention_reference(&desc, &q, &k, &v, None);
        assert!(out.iter().all(|&o| (o - 1.5).abs() < 1e-12));
    }

    #[test]
    fn fully_masked_rows_are_zero_and_causal_bottom_right_sees_the_tail() {
        // q_len 3 > kv_len 2, bottom-right: row 0 sees no key, row 1 key 0, row 2 keys 0 and 1.
        let desc = AttentionDesc::new(1, 1, 1, 3, 2, 8)
            .with_mask(Mask::Causal(CausalAlignment::BottomRight));
        let q = vec![0.1; 24];
        let k = vec![0.2; 16];
        let v: Vec<f64> = (0..16).map(|x| (x / 8) as f64 + 1.0).collect(); // rows 1, 2
        let out = attention_reference(&desc, &q, &k, &v, None);
        assert!(out[..8].iter().all(|&o| o == 0.0));
        assert!(out[8..16].iter().all(|&o| o == 1.0));
        assert!(out[16..].iter().all(|&o| (o - 1.5).abs() < 1e-12));
    }
}
