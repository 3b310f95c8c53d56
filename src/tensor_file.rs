//! Safetensors files for `sdpa run`: reading `q`, `k`, `v` and an optional `mask` into a checked
//! problem, and writing `out`. Every malformed file is an [`Error::TensorFile`] naming the tensor.

use half::f16;
use safetensors::tensor::{Dtype, TensorView};
use safetensors::SafeTensors;

use crate::desc::{AttentionDesc, CausalAlignment, DType, Mask, MaskLayout};
use crate::error::{Error, Result};

/// Tensor data on the host.
#[derive(Debug, Clone, PartialEq)]
pub enum HostTensor {
    /// f32 values.
    F32(Vec<f32>),
    /// f16 values.
    F16(Vec<f16>),
    /// Booleans (a mask).
    Bool(Vec<bool>),
}

impl HostTensor {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            HostTensor::F32(x) => x.len(),
            HostTensor::F16(x) => x.len(),
            HostTensor::Bool(x) => x.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn safetensors_dtype(&self) -> Dtype {
        match self {
            HostTensor::F32(_) => Dtype::F32,
            HostTensor::F16(_) => Dtype::F16,
            HostTensor::Bool(_) => Dtype::BOOL,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        match self {
            HostTensor::F32(x) => bytemuck::cast_slice(x).to_vec(),
            HostTensor::F16(x) => bytemuck::cast_slice(x).to_vec(),
            HostTensor::Bool(x) => x.iter().map(|&b| b as u8).collect(),
        }
    }
}

/// What `sdpa run` reads: the problem and its tensors, contiguous as the description says
/// (q, k, v BHLD; the mask `[b, h, q, Lk]` with broadcast dimensions of extent 1).
#[derive(Debug, Clone, PartialEq)]
pub struct RunInputs {
    /// The problem.
    pub desc: AttentionDesc,
    /// Queries `[B, Hq, Lq, D]`.
    pub q: HostTensor,
    /// Keys `[B, Hkv, Lk, D]`.
    pub k: HostTensor,
    /// Values `[B, Hkv, Lk, Dv]`.
    pub v: HostTensor,
    /// The mask, if the file has one.
    pub mask: Option<HostTensor>,
}

fn dims(name: &str, view: &TensorView<'_>, rank: usize) -> Result<Vec<u32>> {
    let shape = view.shape();
    if shape.len() != rank {
        return Err(Error::file(
            name,
            format!(
                "has rank {} (shape {shape:?}), expected {rank}",
                shape.len()
            ),
        ));
    }
    shape
        .iter()
        .map(|&n| {
            if n == 0 {
                Err(Error::file(
                    name,
                    format!("shape {shape:?} has a zero-size dimension"),
                ))
            } else {
                u32::try_from(n)
                    .map_err(|_| Error::file(name, format!("dimension {n} exceeds u32")))
            }
        })
        .collect()
}

fn float_data(name: &str, view: &TensorView<'_>) -> Result<HostTensor> {
    match view.dtype() {
        Dtype::F32 => Ok(HostTensor::F32(bytemuck::pod_collect_to_vec(view.data()))),
        Dtype::F16 => Ok(HostTensor::F16(bytemuck::pod_collect_to_vec(view.data()))),
        other => Err(Error::file(
            name,
            format!("has dtype {other:?}, expected F32 or F16"),
        )),
    }
}

fn require<'a>(st: &'a SafeTensors<'a>, name: &str) -> Result<TensorView<'a>> {
    st.tensor(name).map_err(|_| {
        let mut have: Vec<String> = st.names().into_iter().map(str::to_string).collect();
        have.sort();
        Error::file(name, format!("missing (the file has {have:?})"))
    })
}

/// Reads a safetensors file's bytes into a checked problem. `causal` adds a causal mask (an error
/// if the file has a mask too); `scale` overrides `1 / sqrt(head_dim)`.
pub fn read_run_inputs(
    bytes: &[u8],
    causal: Option<CausalAlignment>,
    scale: Option<f32>,
) -> Result<RunInputs> {
    let st = SafeTensors::deserialize(bytes).map_err(|e| Error::file("header", e.to_string()))?;
    let (q_view, k_view, v_view) = (require(&st, "q")?, require(&st, "k")?, require(&st, "v")?);
    let q_dims = dims("q", &q_view, 4)?;
    let k_dims = dims("k", &k_view, 4)?;
    let v_dims = dims("v", &v_view, 4)?;
    let q = float_data("q", &q_view)?;
    let dtype = match q {
        HostTensor::F16(_) => DType::F16,
        _ => DType::F32,
    };
    for (name, view) in [("k", &k_view), ("v", &v_view)] {
        if view.dtype() != q_view.dtype() {
            return Err(Error::file(
                name,
                format!(
                    "has dtype {:?} but q has {:?}: all must match",
                    view.dtype(),
                    q_view.dtype()
                ),
            ));
        }
    }
    let (batch, q_heads, q_len, head_dim) = (q_dims[0], q_dims[1], q_dims[2], q_dims[3]);
    let (kv_heads, kv_len) = (k_dims[1], k_dims[2]);
    let expect = |name: &str, got: &[u32], want: [u32; 4], what: &str| -> Result<()> {
        if got != want {
            return Err(Error::file(
                name,
                format!("has shape {got:?}, expected {want:?} ({what})"),
            ));
        }
        Ok(())
    };
    expect(
        "k",
        &k_dims,
        [batch, kv_heads, kv_len, head_dim],
        "batch and head_dim of q",
    )?;
    expect(
        "v",
        &v_dims,
        [batch, kv_heads, kv_len, v_dims[3]],
        "batch, heads and length of k",
    )?;

    let mut desc = AttentionDesc::new(batch, q_heads, kv_heads, q_len, kv_len, head_dim)
        .with_dtype(dtype)
        .with_v_head_dim(v_dims[3]);
    if let Some(s) = scale {
        desc = desc.with_scale(s);
    }
    let mask = match st.tensor("mask") {
        Err(_) => {
            if let Some(align) = causal {
                desc = desc.with_mask(Mask::Causal(align));
            }
            None
        }
        Ok(view) => {
            if causal.is_some() {
                return Err(Error::file(
                    "mask",
                    "the file has a mask and --causal was given: use one of them",
                ));
            }
            let (kind_bool, data) = match view.dtype() {
                Dtype::BOOL => (
                    true,
                    HostTensor::Bool(view.data().iter().map(|&b| b != 0).collect()),
                ),
                d if d == q_view.dtype() => (false, float_data("mask", &view)?),
                d => {
                    return Err(Error::file(
                        "mask",
                        format!(
                            "has dtype {d:?}, expected BOOL or the inputs' {:?}",
                            q_view.dtype()
                        ),
                    ))
                }
            };
            let (layout, data) = broadcast_mask(&desc, view.shape(), data)?;
            desc = desc.with_mask(if kind_bool {
                Mask::Boolean(layout)
            } else {
                Mask::Additive(layout)
            });
            Some(data)
        }
    };
    desc.validate()?;
    Ok(RunInputs {
        q,
        k: float_data("k", &k_view)?,
        v: float_data("v", &v_view)?,
        mask,
        desc,
    })
}

/// Maps a mask of numpy-broadcastable shape onto `[B, Hq, Lq, Lk]`: leading dimensions of extent 1
/// (or missing) get stride 0; a key dimension of extent 1 is expanded on the host (the kernels
/// read keys contiguously).
fn broadcast_mask(
    desc: &AttentionDesc,
    shape: &[usize],
    data: HostTensor,
) -> Result<(MaskLayout, HostTensor)> {
    let target = [desc.batch, desc.q_heads, desc.q_len, desc.kv_len].map(|x| x as usize);
    if shape.len() > 4 || shape.is_empty() {
        return Err(Error::file(
            "mask",
            format!("has shape {shape:?}: expected rank 1 to 4, broadcastable to {target:?}"),
        ));
    }
    let mut full = [1usize; 4];
    full[4 - shape.len()..].copy_from_slice(shape);
    for (axis, (&n, &t)) in full.iter().zip(&target).enumerate() {
        if n != t && n != 1 {
            return Err(Error::file(
                "mask",
                format!("has shape {shape:?}: dimension {axis} is {n}, must be 1 or {t} to broadcast to {target:?}"),
            ));
        }
    }
    let lk = desc.kv_len as usize;
    // A key dimension of extent 1 is repeated: the kernels read keys contiguously. The expansion
    // is quadratic in a small file's sizes (a [1, 1, Lq, 1] mask becomes Lq * Lk elements), so it
    // is bounded before anything is allocated: by 4 GiB (past every adapter's 32-bit element
    // index or storage binding), and by what the host can reserve.
    fn repeat_each<T: Copy>(x: &[T], times: usize, shape: &[usize]) -> Result<Vec<T>> {
        let n = (x.len() as u64).saturating_mul(times as u64);
        let bytes = n.saturating_mul(std::mem::size_of::<T>() as u64);
        if bytes > u32::MAX as u64 {
            return Err(Error::file(
                "mask",
                format!(
                    "has shape {shape:?}: broadcast over {times} keys it would take {bytes} bytes, \
                     more than the 4 GiB a mask buffer may have"
                ),
            ));
        }
        let mut out = Vec::new();
        out.try_reserve_exact(n as usize).map_err(|e| {
            Error::file(
                "mask",
                format!("broadcasting to {n} elements: cannot allocate ({e})"),
            )
        })?;
        for &e in x {
            out.extend(std::iter::repeat_n(e, times));
        }
        Ok(out)
    }
    let data = if full[3] == 1 && lk > 1 {
        match data {
            HostTensor::F32(x) => HostTensor::F32(repeat_each(&x, lk, shape)?),
            HostTensor::F16(x) => HostTensor::F16(repeat_each(&x, lk, shape)?),
            HostTensor::Bool(x) => HostTensor::Bool(repeat_each(&x, lk, shape)?),
        }
    } else {
        data
    };
    full[3] = lk;
    let stride = |axis: usize, inner: u64| if full[axis] == 1 { 0 } else { inner };
    let row = lk as u64;
    let head = row * full[2] as u64;
    let batch = head * full[1] as u64;
    Ok((
        MaskLayout {
            offset: 0,
            batch_stride: stride(0, batch),
            head_stride: stride(1, head),
            q_stride: stride(2, row),
        },
        data,
    ))
}

/// Serialises one tensor as a safetensors file.
pub fn write_tensor(name: &str, shape: &[usize], data: &HostTensor) -> Result<Vec<u8>> {
    let bytes = data.bytes();
    let view = TensorView::new(data.safetensors_dtype(), shape.to_vec(), &bytes)
        .map_err(|e| Error::file(name, e.to_string()))?;
    safetensors::serialize([(name, view)], None).map_err(|e| Error::file(name, e.to_string()))
}

/// Serialises several tensors as one safetensors file (for generating inputs).
pub fn write_tensors(tensors: &[(&str, Vec<usize>, HostTensor)]) -> Result<Vec<u8>> {
    let bytes: Vec<Vec<u8>> = tensors.iter().map(|(_, _, d)| d.bytes()).collect();
    let views = tensors
        .iter()
        .zip(&bytes)
        .map(|((name, shape, data), b)| {
            TensorView::new(data.safetensors_dtype(), shape.clone(), b)
                .map(|v| (*name, v))
                .map_err(|e| Error::file(*name, e.to_string()))
        })
        .collect::<Result<Vec<_>>>()?;
    safetensors::serialize(views, None).map_err(|e| Error::file("file", e.to_string()))
}
