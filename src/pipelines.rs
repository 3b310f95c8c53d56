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
        variant: &ShaderVariant,
        runtime_checks: bool,
    ) -> Result<CompiledKernel> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = cache.kernels.get(variant) {
            return Ok(k.clone());
        }
        let scope = ErrorScope::push(device);
        let source = variant.source();
        let module = match cache.modules.get(&source) {
            Some(m) => m.clone(),
            None => {
                let desc = wgpu::ShaderModuleDescriptor {
                    label: Some(variant.entry.name()),
                    source: wgpu::ShaderSource::Wgsl(source.clone().into()),
                };
                let m = if runtime_checks {
                    device.create_shader_module(desc)
                } else {
                    // SAFETY: see `Context::with_runtime_checks`: every index the kernels compute
                    // is in bounds and every loop finite for each plan the planner accepts and
                    // each buffer `Attention::encode` accepts.
                    unsafe {
                        device.create_shader_module_trusted(
                            desc,
                            wgpu::ShaderRuntimeChecks::unchecked(),
                        )
                    }
                };
                cache.modules.insert(source, m.clone());
                m
            }
        };
        let layout = bind_group_layout(device, variant.entry);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(variant.entry.name()),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let constants = variant.pipeline_constants();
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
