//! # wgpu-sdpa
//!
//! Scaled dot-product attention, `O = softmax(scale * Q Kᵀ + mask) V`, for programs that use
//! wgpu: fused, tiled flash attention written in WGSL, running on Metal, Vulkan, DX12 and
//! WebGPU, with an unfused path for short queries.
//!
//! ```no_run
//! use wgpu_sdpa::{Attention, AttentionDesc, Context, Mask, CausalAlignment};
//!
//! # fn main() -> wgpu_sdpa::Result<()> {
//! let ctx = Context::headless()?;
//! let desc = AttentionDesc::new(1, 8, 2, 128, 128, 64)
//!     .with_mask(Mask::Causal(CausalAlignment::BottomRight));
//! let attention = Attention::new(&ctx, &desc)?;
//! println!("{}", attention.plan()); // which kernel, which tiles, why
//! let q = vec![0.1f32; 8 * 128 * 64];
//! let kv = vec![0.2f32; 2 * 128 * 64];
//! let out: Vec<f32> = attention.run(&q, &kv, &kv, None)?;
//! assert_eq!(out.len(), 8 * 128 * 64);
//! # Ok(())
//! # }
//! ```
//!
//! A wgpu application wraps its own device with [`Context::from_wgpu`] and records into its own
//! encoder with [`Attention::encode`]; see `examples/wgpu_app.rs`.
//!
//! Where things are: [`desc`] (the problem and its checks), [`planner`] (fused or unfused, and
//! why), [`kernels`] (one module per kernel family), `wgsl/` (the kernels; masks are applied in
//! `wgsl/mask.wgsl`), [`reference`](mod@reference) (the f64 CPU reference).

#![warn(missing_docs)]

pub mod attention;
#[cfg(not(target_arch = "wasm32"))]
pub mod bench;
pub mod capabilities;
pub mod check;
pub mod context;
pub mod coop_probe;
pub mod desc;
pub mod error;
mod gpu_errors;
pub mod kernels;
mod loop_budget;
mod params;
mod pipelines;
pub mod planner;
pub mod reference;
pub mod shader;
// Public only for `examples/pipeline_stats.rs` (`spirv::variant_spirv`); not part of the API.
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
pub mod spirv;
pub mod tensor_file;
mod tune;

pub use attention::{Attention, AttentionBuffers, Element, HostMask};
pub use capabilities::Capabilities;
pub use context::Context;
pub use desc::{AttentionDesc, CausalAlignment, DType, Mask, MaskLayout, Tensor, TensorLayout};
pub use error::{Error, GpuErrorKind, Result};
pub use planner::{plan, FusedTiles, Kernel, Path, Plan, PlanOptions};
pub use reference::{attention_reference, compare, Comparison, RefMask};
pub use shader::{KernelEntry, ShaderVariant};
