//! The one place that owns compiled pipelines: each [`ShaderVariant`] is compiled once per
//! context, on first use (at plan time, never while encoding), and shared by every
//! [`crate::Attention`] and thread after that.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::gpu_errors::ErrorScope;
use crate::shader::{BindingKind, KernelEntry, ShaderVariant};

/// A compiled pipeline with the bind group layout it was made with.
#[derive(Debug, Clone)]
pub(crate) struct CompiledKernel {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
    pub entry: KernelEntry,
}

#[derive(Default)]
struct Cache {
    modules: HashMap<String, wgpu::ShaderModule>,
    kernels: HashMap<ShaderVariant, CompiledKernel>,
}

/// Pipelines by variant. Thread-safe; compiling holds the lock, which keeps a variant from
/// being compiled twice by two threads at once.
#[derive(Default)]
pub(crate) struct PipelineCache {
    cache: Mutex<Cache>,
}

impl PipelineCache {
    /// The pipeline of `variant`, compiled now if it is new.
    pub fn get(
        &self,
        device: &wgpu::Device,
        backend: wgpu::Backend,
        variant: &ShaderVariant,
        runtime_checks: bool,
    ) -> Result<CompiledKernel> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = cache.kernels.get(variant) {
            return Ok(k.clone());
        }
        let scope = ErrorScope::push(device);
        let source = variant.source();
        let constants = variant.pipeline_constants();
        let own_spirv = uses_own_spirv(device, backend, variant);
        let key = if own_spirv {
            format!("{source}\n// SPIR-V, constants {constants:?}")
        } else {
            source.clone()
        };
        let module = match cache.modules.get(&key) {
            Some(m) => m.clone(),
            None => {
                let m = if own_spirv {
                    make_spirv_module(device, variant, &source, &constants, runtime_checks)?
                } else {
                    make_wgsl_module(device, variant, &source, runtime_checks)
                };
                cache.modules.insert(key, m.clone());
                m
            }
        };
        // Our SPIR-V has its constants applied already.
        let constants = if own_spirv { Vec::new() } else { constants };
        let layout = bind_group_layout(device, variant.entry);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(variant.entry.name()),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let label = variant.label();
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&label),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &constants,
                // Every kernel writes workgroup memory before it reads it.
                zero_initialize_workgroup_memory: false,
            },
            cache: None,
        });
        if let Some(e) = scope.pop() {
            // A module that failed to compile must not be reused.
            cache.modules.retain(|_, m| m != &module);
            return Err(match e {
                Error::Gpu { kind, message } => Error::Gpu {
                    kind,
                    message: format!("compiling {label}: {message}"),
                },
                other => other,
            });
        }
        let kernel = CompiledKernel {
            pipeline,
            layout,
            entry: variant.entry,
        };
        cache.kernels.insert(variant.clone(), kernel.clone());
        Ok(kernel)
    }

    /// How many pipelines have been compiled (each variant once).
    pub fn compiled_count(&self) -> usize {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .kernels
            .len()
    }
}

/// Whether `variant`'s module is our own SPIR-V rather than WGSL for wgpu to translate: the
/// cooperative-matrix kernels where the device takes SPIR-V as it is (src/spirv.rs), pipeline
/// constants applied there. (`spirv_all=1` sends every kernel this way: how the path is tested
/// without fragments; `coop_aligned=0` keeps wgpu's own translation, for comparison.)
pub(crate) fn uses_own_spirv(
    device: &wgpu::Device,
    backend: wgpu::Backend,
    variant: &ShaderVariant,
) -> bool {
    (variant.coop.is_some() || crate::tune::knob("spirv_all") == Some(1))
        && passthrough_spirv(device, backend)
        && crate::tune::knob("coop_aligned") != Some(0)
}

/// Whether `device` takes SPIR-V modules as they are (Vulkan with `PASSTHROUGH_SHADERS`).
pub(crate) fn passthrough_spirv(device: &wgpu::Device, backend: wgpu::Backend) -> bool {
    cfg!(not(target_arch = "wasm32"))
        && backend == wgpu::Backend::Vulkan
        && device
            .features()
            .contains(wgpu::Features::PASSTHROUGH_SHADERS)
}

fn make_wgsl_module(
    device: &wgpu::Device,
    variant: &ShaderVariant,
    source: &str,
    runtime_checks: bool,
) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(variant.entry.name()),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    };
    if runtime_checks {
        device.create_shader_module(desc)
    } else {
        // SAFETY: see `Context::with_runtime_checks`: every index the kernels compute is in
        // bounds and every loop finite for each plan the planner accepts and each buffer
        // `Attention::encode` accepts.
        unsafe { device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked()) }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn make_spirv_module(
    device: &wgpu::Device,
    variant: &ShaderVariant,
    source: &str,
    constants: &[(&str, f64)],
    runtime_checks: bool,
) -> Result<wgpu::ShaderModule> {
    let bindings: Vec<u32> = variant.entry.bindings().iter().map(|&(b, _)| b).collect();
    let (words, [x, y, z]) = crate::spirv::coop_spirv(
        source,
        constants,
        &bindings,
        device.features(),
        runtime_checks,
    )
    .map_err(|e| Error::Gpu {
        kind: crate::error::GpuErrorKind::Validation,
        message: format!("making SPIR-V for {}: {e}", variant.label()),
    })?;
    let entry = [wgpu::PassthroughShaderEntryPoint {
        name: "main".into(),
        // Checked by wgpu against the device's limits (Vulkan runs the module's own).
        workgroup_size: (x, y, z),
    }];
    // SAFETY: the SPIR-V is naga's translation of our WGSL, validated against this device's
    // features, with the constants applied and bindings numbered as wgpu's Vulkan layouts are;
    // the one edit is the `Aligned 16` operand on fragment loads and stores, true for every
    // address the kernel forms (src/spirv.rs). Bounds: as for `make_wgsl_module`.
    Ok(unsafe {
        device.create_shader_module_passthrough(wgpu::ShaderModuleDescriptorPassthrough {
            label: Some(variant.entry.name()),
            entry_points: std::borrow::Cow::Borrowed(&entry),
            spirv: Some(std::borrow::Cow::Owned(words)),
            ..Default::default()
        })
    })
}

#[cfg(target_arch = "wasm32")]
fn make_spirv_module(
    _: &wgpu::Device,
    _: &ShaderVariant,
    _: &str,
    _: &[(&str, f64)],
    _: bool,
) -> Result<wgpu::ShaderModule> {
    unreachable!("no SPIR-V in a browser")
}

fn bind_group_layout(device: &wgpu::Device, entry: KernelEntry) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = entry
        .bindings()
        .iter()
        .map(|&(binding, kind)| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match kind {
                    BindingKind::Uniform => wgpu::BufferBindingType::Uniform,
                    BindingKind::Read => wgpu::BufferBindingType::Storage { read_only: true },
                    BindingKind::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(entry.name()),
        entries: &entries,
    })
}
