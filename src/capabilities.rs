//! What an adapter can do, as plain data the planner reads.
//!
//! A [`Capabilities`] is read off a live adapter by [`crate::Context`], or built from one of the
//! profiles below, so the planner (and the tests that check every variant it can emit) can be
//! driven for a Mac, an NVIDIA GPU, lavapipe or a browser on a machine that has none of them.

use wgpu::{CooperativeMatrixProperties, CooperativeScalarType};

/// The adapter facts the planner and the kernels depend on.
#[derive(Debug, Clone, PartialEq)]
pub struct Capabilities {
    /// The adapter's name.
    pub adapter_name: String,
    /// The backend (Vulkan, Metal, Dx12, Gl, BrowserWebGpu).
    pub backend: wgpu::Backend,
    /// Discrete, integrated, CPU (lavapipe), ...
    pub device_type: wgpu::DeviceType,
    /// `SHADER_F16` is enabled on the device.
    pub shader_f16: bool,
    /// `SUBGROUP` and `SUBGROUP_BARRIER` are enabled on the device (the cooperative-matrix
    /// kernel's shuffles and its barriers within a subgroup; Vulkan and Metal have both).
    pub subgroups: bool,
    /// A `subgroupBarrier()` of the cooperative-matrix kernel reaches the driver ordering
    /// workgroup memory, as the kernel needs: on Metal (naga writes
    /// `simdgroup_barrier(mem_flags::mem_threadgroup)`) and on Vulkan with `PASSTHROUGH_SHADERS`,
    /// where `src/spirv.rs` makes the module and adds the semantics naga 30 leaves out. Without
    /// it the kernel is not planned.
    pub subgroup_sync: bool,
    /// `TIMESTAMP_QUERY` is enabled on the device.
    pub timestamps: bool,
    /// `MEMORY_DECORATION_COHERENT` is enabled on the device (`@coherent` storage buffers): on
    /// Vulkan the decode kernel's last split to finish then merges the splits itself, in place
    /// of the reduce pass (`wgsl/split_merge_in_pass.wgsl`).
    pub coherent_storage: bool,
    /// Smallest subgroup size the adapter may use (0 when unknown).
    pub subgroup_min_size: u32,
    /// Largest subgroup size the adapter may use (0 when unknown).
    pub subgroup_max_size: u32,
    /// The cooperative-matrix configurations the adapter lists, empty when
    /// `EXPERIMENTAL_COOPERATIVE_MATRIX` is not enabled on the device. Only these may be used:
    /// wgpu does not reject an unlisted one, and on the H200 an unlisted one computed garbage.
    pub cooperative_matrix: Vec<CooperativeMatrixProperties>,
    /// `max_compute_workgroup_storage_size`, bytes.
    pub max_workgroup_storage_bytes: u32,
    /// `max_compute_invocations_per_workgroup`.
    pub max_invocations_per_workgroup: u32,
    /// `max_compute_workgroup_size_x`.
    pub max_workgroup_size_x: u32,
    /// `max_compute_workgroups_per_dimension`.
    pub max_workgroups_per_dimension: u32,
    /// `max_storage_buffer_binding_size`, bytes.
    pub max_storage_binding_bytes: u64,
    /// `max_buffer_size`, bytes.
    pub max_buffer_bytes: u64,
    /// `min_storage_buffer_offset_alignment`, bytes.
    pub storage_offset_alignment: u32,
}

fn coop(
    size: u32,
    ab: CooperativeScalarType,
    cr: CooperativeScalarType,
) -> CooperativeMatrixProperties {
    CooperativeMatrixProperties {
        m_size: size,
        n_size: size,
        k_size: size,
        ab_type: ab,
        cr_type: cr,
        saturating_accumulation: false,
    }
}

impl Capabilities {
    /// Reads the capabilities of a device created from `adapter` (features and limits are the
    /// device's, which may be fewer than the adapter's).
    pub fn from_device(adapter: &wgpu::Adapter, device: &wgpu::Device) -> Self {
        let info = adapter.get_info();
        let features = device.features();
        let limits = device.limits();
        let cooperative_matrix =
            if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
                adapter.cooperative_matrix_properties()
            } else {
                Vec::new()
            };
        Capabilities {
            shader_f16: features.contains(wgpu::Features::SHADER_F16),
            subgroups: features
                .contains(wgpu::Features::SUBGROUP | wgpu::Features::SUBGROUP_BARRIER),
            subgroup_sync: info.backend == wgpu::Backend::Metal
                || crate::pipelines::passthrough_spirv(device, info.backend),
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            coherent_storage: features.contains(wgpu::Features::MEMORY_DECORATION_COHERENT),
            subgroup_min_size: info.subgroup_min_size,
            subgroup_max_size: info.subgroup_max_size,
            cooperative_matrix,
            ..Self::from_limits(&info.name, info.backend, info.device_type, &limits)
        }
    }

    /// An adapter with `limits` and none of the optional features.
    fn from_limits(
        name: &str,
        backend: wgpu::Backend,
        device_type: wgpu::DeviceType,
        limits: &wgpu::Limits,
    ) -> Self {
        Capabilities {
            adapter_name: name.into(),
            backend,
            device_type,
            shader_f16: false,
            subgroups: false,
            subgroup_sync: false,
            timestamps: false,
            coherent_storage: false,
            subgroup_min_size: 0,
            subgroup_max_size: 0,
            cooperative_matrix: Vec::new(),
            max_workgroup_storage_bytes: limits.max_compute_workgroup_storage_size,
            max_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup,
            max_workgroup_size_x: limits.max_compute_workgroup_size_x,
            max_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
            max_storage_binding_bytes: limits.max_storage_buffer_binding_size,
            max_buffer_bytes: limits.max_buffer_size,
            storage_offset_alignment: limits.min_storage_buffer_offset_alignment,
        }
    }

    /// The most threads a one-dimensional compute workgroup may have: the smaller of
    /// `max_invocations_per_workgroup` and `max_workgroup_size_x`.
    pub fn max_workgroup_threads(&self) -> u32 {
        self.max_invocations_per_workgroup
            .min(self.max_workgroup_size_x)
    }

    /// Whether a one-dimensional workgroup of `threads` threads using `bytes` of workgroup
    /// memory fits this adapter's limits.
    pub fn fits_workgroup(&self, threads: u32, bytes: u32) -> bool {
        threads <= self.max_workgroup_threads() && bytes <= self.max_workgroup_storage_bytes
    }

    /// Apple M-series through Metal: 32 KiB of threadgroup memory, SIMD width 32, f16, and the
    /// `simdgroup_matrix` 8x8 configurations wgpu-hal's Metal backend lists
    /// (f32/f32, f16/f16, f16/f32).
    pub fn apple_m_series() -> Self {
        use CooperativeScalarType::{F16, F32};
        Capabilities {
            adapter_name: "Apple M-series (profile)".into(),
            backend: wgpu::Backend::Metal,
            device_type: wgpu::DeviceType::IntegratedGpu,
            shader_f16: true,
            subgroups: true,
            subgroup_sync: true,
            timestamps: true,
            coherent_storage: false,
            subgroup_min_size: 32,
            subgroup_max_size: 32,
            cooperative_matrix: vec![coop(8, F32, F32), coop(8, F16, F16), coop(8, F16, F32)],
            max_workgroup_storage_bytes: 32 * 1024,
            max_invocations_per_workgroup: 1024,
            max_workgroup_size_x: 1024,
            max_workgroups_per_dimension: 65535,
            max_storage_binding_bytes: 1 << 30,
            max_buffer_bytes: 1 << 32,
            storage_offset_alignment: 256,
        }
    }

    /// NVIDIA H200 through Vulkan, as measured (../shared/gpu/README.md): 48 KiB, subgroup 32,
    /// f16, cooperative matrices 16x16x16 f16 with f32 or f16 accumulators.
    pub fn nvidia_vulkan() -> Self {
        use CooperativeScalarType::{F16, F32};
        Capabilities {
            adapter_name: "NVIDIA H200 (profile)".into(),
            backend: wgpu::Backend::Vulkan,
            device_type: wgpu::DeviceType::DiscreteGpu,
            shader_f16: true,
            subgroups: true,
            subgroup_sync: true,
            timestamps: true,
            coherent_storage: true,
            subgroup_min_size: 32,
            subgroup_max_size: 32,
            cooperative_matrix: vec![coop(16, F16, F32), coop(16, F16, F16)],
            max_workgroup_storage_bytes: 48 * 1024,
            max_invocations_per_workgroup: 1024,
            max_workgroup_size_x: 1024,
            max_workgroups_per_dimension: 65535,
            max_storage_binding_bytes: (1 << 32) - 1,
            max_buffer_bytes: 1 << 40,
            storage_offset_alignment: 16,
        }
    }

    /// Mesa's lavapipe (Vulkan on the CPU, the CI adapter): 32 KiB, subgroup 8, f16, no
    /// cooperative matrices, 128 MiB storage bindings.
    pub fn lavapipe() -> Self {
        Capabilities {
            adapter_name: "llvmpipe (profile)".into(),
            backend: wgpu::Backend::Vulkan,
            device_type: wgpu::DeviceType::Cpu,
            shader_f16: true,
            subgroups: true,
            subgroup_sync: true,
            timestamps: true,
            coherent_storage: true,
            subgroup_min_size: 8,
            subgroup_max_size: 8,
            cooperative_matrix: Vec::new(),
            max_workgroup_storage_bytes: 32 * 1024,
            max_invocations_per_workgroup: 1024,
            max_workgroup_size_x: 1024,
            max_workgroups_per_dimension: 65535,
            max_storage_binding_bytes: 128 << 20,
            max_buffer_bytes: 1 << 31,
            storage_offset_alignment: 16,
        }
    }

    /// A browser's WebGPU with the default limits: 16 KiB of workgroup memory, 256 invocations,
    /// no `shader-f16`, no subgroups, 128 MiB storage bindings.
    pub fn browser_webgpu() -> Self {
        Self::from_limits(
            "browser WebGPU (profile)",
            wgpu::Backend::BrowserWebGpu,
            wgpu::DeviceType::Other,
            &wgpu::Limits::default(),
        )
    }

    /// Every profile, with a short name (for tests and `sdpa info`).
    pub fn profiles() -> Vec<(&'static str, Capabilities)> {
        vec![
            ("apple", Self::apple_m_series()),
            ("nvidia", Self::nvidia_vulkan()),
            ("lavapipe", Self::lavapipe()),
            ("browser", Self::browser_webgpu()),
        ]
    }
}
