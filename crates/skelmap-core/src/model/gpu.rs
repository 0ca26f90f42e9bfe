//! GPU skinning buffers of a model ([`Model::gpu_mesh`]) and what they cost against the
//! model's own kernels ([`Model::gpu_error`]).
//!
//! The buffers are built through the same unwelding as [`Model::to_asset`] (a vertex a
//! distinct texture coordinate and normal, one draw per submesh), at the bind pose, and the
//! influences through [`gpu::Skin::new`], the one choice and quantisation the glTF writer
//! uses as well.

use glam::{Affine3A, Vec3A};
use rayon::prelude::*;

use super::any::with_view;
use super::convert::SkinningError;
use super::{Model, Pose};
use crate::asset;
use crate::gpu::{self, Error, Part};
use crate::pose::Interpolation;
use crate::view::ModelView;

/// The unwelded bind-pose meshes of a model, each with the model mesh it came from and the
/// model vertex of each of its vertices, and the bind-pose world transforms.
type Parts = (Vec<(asset::Mesh, u32, Vec<u32>)>, Vec<Affine3A>);

/// One model mesh's deformed positions and normals.
type Deformed = (Vec<[f32; 3]>, Vec<[f32; 3]>);

impl Model<'_> {
    /// The model's GPU skinning buffers (see [`gpu`]): bind-pose vertices, joint indices and
    /// quantised weights as `options` asks, inverse bind matrices, one [`gpu::Draw`] per
    /// submesh. An explicit copy, O(vertices); [`Influences::Within`](gpu::Influences::Within)
    /// adds two linear blends of every vertex per frame.
    ///
    /// ```
    /// use skelmap_core::{Model, gpu, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let options = gpu::Options { influences: gpu::Influences::Eight, ..Default::default() };
    /// let mesh = model.gpu_mesh(&options)?;
    /// assert_eq!((mesh.positions.len(), mesh.indices.len(), mesh.skin.num_sets()), (136, 768, 2));
    /// assert!(matches!(mesh.skin.joints[0], gpu::Joints::U8(_)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NotSkeletal`] for a model without bones or with vertex animation;
    /// [`Error::VertexFrames`] for a skeletal model whose frames also replace vertices;
    /// [`Error::JointWidth`] for `u8` joints asked of more than 255 bones;
    /// [`Error::TooManyVertices`], [`Error::Tolerance`]; [`Error::Asset`] and
    /// [`Error::Deform`] if a kernel rejects the model (impossible for a validated one).
    pub fn gpu_mesh(&self, options: &gpu::Options) -> Result<gpu::Mesh, Error> {
        let (built, binds) = self.gpu_parts()?;
        self.gpu_build(&built, &binds, options)
    }

    /// How far [`Model::gpu_mesh`]`(options)` skinned by [`gpu::Mesh::skin_vertex`] lies from
    /// [`Model::deform`], over every frame (the bind pose for a model without frames):
    /// largest and RMS distance of a vertex, relative to the diagonal of the bind-pose
    /// bounds. A vertex either skin puts at a non-finite position is left out.
    ///
    /// ```
    /// use skelmap_core::{Model, gpu, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let error = model.gpu_error(&gpu::Options::default())?;
    /// assert!(error.max < 1e-2 && error.rms <= error.max, "{error}");
    /// assert_eq!((error.frames, error.vertices), (9, 136));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Model::gpu_mesh`].
    pub fn gpu_error(&self, options: &gpu::Options) -> Result<SkinningError, Error> {
        let errors = self.gpu_errors(core::slice::from_ref(options))?;
        errors.into_iter().next().ok_or(Error::NotSkeletal)
    }

    /// [`Model::gpu_error`] of each of `options`, deforming each frame once for all of them.
    ///
    /// ```
    /// use skelmap_core::{Model, gpu, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let coarse = gpu::Options::default();
    /// let fine = gpu::Options { precision: gpu::Precision::Unorm16, ..Default::default() };
    /// let errors = model.gpu_errors(&[coarse, fine])?;
    /// assert!(errors[1].max <= errors[0].max);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Model::gpu_mesh`].
    pub fn gpu_errors(&self, options: &[gpu::Options]) -> Result<Vec<SkinningError>, Error> {
        let all: Vec<usize> = (0..self.num_frames()).collect();
        self.gpu_errors_over(options, &all)
    }

    /// [`Model::gpu_errors`] over the frames `over` only (for a model without frames, the
    /// bind pose whatever `over` holds): what a caller with a budget measures on a model of
    /// many frames and vertices, whose every frame costs a deform. `frames` in each result
    /// counts the frames measured.
    ///
    /// ```
    /// use skelmap_core::{Model, gpu, synth};
    /// let bytes = synth::tube(&Default::default()).write()?; // 9 frames
    /// let model = Model::from_bytes(&bytes)?;
    /// let options = [gpu::Options::default()];
    /// let some = model.gpu_errors_over(&options, &[0, 4, 8])?;
    /// let all = model.gpu_errors(&options)?;
    /// assert_eq!((some[0].frames, all[0].frames), (3, 9));
    /// assert!(some[0].max <= all[0].max);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Model::gpu_mesh`]; [`Error::Deform`] for a frame out of range.
    pub fn gpu_errors_over(
        &self,
        options: &[gpu::Options],
        over: &[usize],
    ) -> Result<Vec<SkinningError>, Error> {
        let (built, binds) = self.gpu_parts()?;
        let meshes = options
            .iter()
            .map(|o| self.gpu_build(&built, &binds, o))
            .collect::<Result<Vec<_>, _>>()?;
        let frames = self.num_frames();
        let over: &[usize] = if frames == 0 { &[0] } else { over };
        // Each mesh's influences once, as (joint, weight) with the weight 0 slots left out
        // (they add 0 · a finite matrix).
        let flat: Vec<Vec<Vec<(usize, f32)>>> = meshes
            .iter()
            .map(|mesh| {
                let one = mesh
                    .skin
                    .weights
                    .first()
                    .map_or(1.0, |w| w.precision().one() as f32);
                (0..mesh.positions.len())
                    .map(|v| {
                        (0..4 * mesh.skin.num_sets())
                            .filter_map(|k| mesh.skin.influence(v, k))
                            .filter(|&(_, w)| w > 0)
                            .map(|(j, w)| (usize::from(j), w as f32 / one))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        // Frames in parallel, each summing into its own totals.
        let per_frame = |f: usize| -> Result<Vec<(f32, f64, usize)>, Error> {
            let mut pose = Pose::default();
            if frames == 0 {
                self.pose_bind(&mut pose);
            } else {
                self.pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)?;
            }
            let mut exact: Vec<Deformed> = Vec::with_capacity(self.num_meshes());
            for m in self.meshes() {
                let n = m.num_vertices();
                let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                self.deform(m.index(), &pose, &mut p, &mut q)?;
                exact.push((p, q));
            }
            let mut palette = Vec::new();
            let mut totals = vec![(0.0f32, 0.0f64, 0usize); meshes.len()];
            for ((mesh, flat), (max, sum, count)) in meshes.iter().zip(&flat).zip(&mut totals) {
                mesh.palette(&pose, &mut palette)?;
                for (v, (&[m, s], list)) in mesh.sources.iter().zip(flat).enumerate() {
                    let want = exact.get(m as usize).and_then(|(p, _)| p.get(s as usize));
                    let (Some(want), Some(p)) = (want, mesh.positions.get(v)) else {
                        continue;
                    };
                    // The shader's order, as gpu::Mesh::skin_vertex: blend, then apply.
                    let mut b = [[0.0f32; 4]; 3];
                    for &(j, w) in list {
                        let Some(m) = palette.get(j) else { continue };
                        for (br, mr) in b.iter_mut().zip(m) {
                            for (x, y) in br.iter_mut().zip(mr) {
                                *x += w * y;
                            }
                        }
                    }
                    let got: [f32; 3] = core::array::from_fn(|r| {
                        b[r][0] * p[0] + b[r][1] * p[1] + b[r][2] * p[2] + b[r][3]
                    });
                    let d = Vec3A::from_array(*want).distance(Vec3A::from_array(got));
                    if d.is_finite() {
                        *max = max.max(d);
                        *sum += f64::from(d) * f64::from(d);
                        *count += 1;
                    }
                }
            }
            Ok(totals)
        };
        let totals = over.par_iter().map(|&f| per_frame(f)).try_reduce(
            || vec![(0.0f32, 0.0f64, 0usize); meshes.len()],
            |a, b| {
                Ok(a.iter()
                    .zip(&b)
                    .map(|(x, y)| (x.0.max(y.0), x.1 + y.1, x.2 + y.2))
                    .collect())
            },
        )?;
        Ok(meshes
            .iter()
            .zip(totals)
            .map(|(mesh, (max, sum, count))| {
                let size = mesh.size.max(f32::MIN_POSITIVE);
                SkinningError {
                    max: max / size,
                    rms: ((sum / count.max(1) as f64).sqrt() as f32) / size,
                    size: mesh.size,
                    frames: over.len(),
                    vertices: mesh.positions.len(),
                }
            })
            .collect())
    }

    /// The model's vertex-animation buffers (see [`gpu::MorphMesh`]): every frame's records
    /// as the file packs them, each frame's grids, the normal table, and the drawn vertices
    /// (unwelded as [`Model::to_asset`] unwelds them, each naming its record), triangles and
    /// one [`gpu::Draw`] per submesh. An explicit copy, O(frames · vertices).
    ///
    /// # Errors
    ///
    /// [`Error::NotVertexAnimated`] for a model that is not vertex-animated (or a terrain,
    /// or meshes packed differently); [`Error::TooManyVertices`] past 32-bit indices;
    /// [`Error::Asset`] and [`Error::Deform`] if a kernel rejects the model (impossible for a
    /// validated one).
    pub fn gpu_morph(&self) -> Result<gpu::MorphMesh, Error> {
        let frames = self.num_frames();
        let first =
            with_view!(self.view(), v => ModelView::keyframe(v, 0, 0).map(|(k, t)| (k.frame, t)));
        let (Some((frame, table)), true) = (first, self.is_vertex_animated()) else {
            return Err(Error::NotVertexAnimated);
        };
        let mut out = gpu::MorphMesh::new(gpu::Packing::of(&frame), table);
        out.meshes = self.num_meshes();
        out.frames = frames;
        out.records_per_frame = self.meshes().map(|m| m.num_vertices()).sum();
        for f in 0..frames {
            for mesh in 0..out.meshes {
                let pushed = with_view!(self.view(), v => ModelView::keyframe(v, mesh, f)
                    .filter(|(_, t)| core::ptr::eq(*t, table))
                    .and_then(|(k, _)| out.push_keyframe(&k)));
                pushed.ok_or(Error::NotVertexAnimated)?;
            }
        }
        let too_many = || Error::TooManyVertices {
            vertices: self.num_vertices(),
        };
        let mut pose = Pose::default();
        self.pose(0, 0, 0.0, Interpolation::Nlerp, &mut pose)?;
        let (materials, _, made_from) = super::asset::materials(self, false, None);
        let mut first_record = 0u32;
        for mesh in self.meshes() {
            let index = u32::try_from(mesh.index()).map_err(|_| too_many())?;
            let parts =
                super::asset::mesh_parts(self, &mesh, &pose, false, (&materials, &made_from))?;
            for super::asset::Part {
                mesh: part, picked, ..
            } in parts
            {
                let base = u32::try_from(out.vertices.len()).map_err(|_| too_many())?;
                let first_index = u32::try_from(out.indices.len()).map_err(|_| too_many())?;
                for (k, &record) in picked.iter().enumerate() {
                    let uv = part.uvs.as_ref().and_then(|u| u.get(k)).copied();
                    out.vertices.push(gpu::MorphVertex {
                        record: first_record + record,
                        mesh: index,
                        uv: uv.unwrap_or_default(),
                    });
                }
                out.indices
                    .extend(part.triangles.iter().flatten().map(|&i| base + i));
                out.draws.push(gpu::Draw {
                    name: part.name.clone(),
                    material: part.material,
                    first_index,
                    num_indices: u32::try_from(3 * part.triangles.len()).map_err(|_| too_many())?,
                });
            }
            first_record += u32::try_from(mesh.num_vertices()).map_err(|_| too_many())?;
        }
        Ok(out)
    }

    /// How far [`Model::gpu_morph`]'s buffers tweened by [`gpu::MorphMesh::tween_vertex`] lie
    /// from [`Model::deform`]: every frame, and the tween halfway from each frame to the
    /// next, so `frames` counts `2 · frames − 1` poses. Largest and RMS distance of a drawn
    /// vertex, relative to the diagonal of frame 0's bounds.
    ///
    /// ```
    /// use skelmap_core::{Model, md3};
    /// let bytes = md3::Builder::triangle().write();
    /// let error = Model::from_bytes(&bytes)?.gpu_morph_error()?;
    /// assert_eq!((error.max, error.frames, error.vertices), (0.0, 1, 3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Model::gpu_morph`].
    pub fn gpu_morph_error(&self) -> Result<SkinningError, Error> {
        let morph = self.gpu_morph()?;
        let frames = morph.frames;
        // (a, b, t) of every pose compared.
        let poses: Vec<(usize, usize, f32)> = (0..frames)
            .flat_map(|f| {
                let half = (f + 1 < frames).then_some((f, f + 1, 0.5));
                core::iter::once((f, f, 0.0)).chain(half)
            })
            .collect();
        let per_pose =
            |&(a, b, t): &(usize, usize, f32)| -> Result<(f32, f64, usize, [Vec3A; 2]), Error> {
                let mut pose = Pose::default();
                self.pose(a, b, t, Interpolation::Nlerp, &mut pose)?;
                let mut exact = Vec::with_capacity(morph.records_per_frame);
                for m in self.meshes() {
                    let n = m.num_vertices();
                    let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                    self.deform(m.index(), &pose, &mut p, &mut q)?;
                    exact.extend(p);
                }
                let (mut max, mut sum, mut count) = (0.0f32, 0.0f64, 0usize);
                let mut bounds = [Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY)];
                for (v, vertex) in morph.vertices.iter().enumerate() {
                    let (Some(want), Some((got, _))) = (
                        exact.get(vertex.record as usize),
                        morph.tween_vertex(v, a, b, t),
                    ) else {
                        continue;
                    };
                    let want = Vec3A::from_array(*want);
                    bounds = [bounds[0].min(want), bounds[1].max(want)];
                    let d = want.distance(Vec3A::from_array(got));
                    if d.is_finite() {
                        max = max.max(d);
                        sum += f64::from(d) * f64::from(d);
                        count += 1;
                    }
                }
                Ok((max, sum, count, bounds))
            };
        let results = poses
            .par_iter()
            .map(per_pose)
            .collect::<Result<Vec<_>, Error>>()?;
        let size = results.first().map_or(0.0, |r| {
            let d = r.3[1] - r.3[0];
            if d.is_finite() { d.length() } else { 0.0 }
        });
        let (max, sum, count) = results
            .iter()
            .fold((0.0f32, 0.0f64, 0usize), |(m, s, c), r| {
                (m.max(r.0), s + r.1, c + r.2)
            });
        let scale = size.max(f32::MIN_POSITIVE);
        Ok(SkinningError {
            max: max / scale,
            rms: ((sum / count.max(1) as f64).sqrt() as f32) / scale,
            size,
            frames: poses.len(),
            vertices: morph.vertices.len(),
        })
    }

    /// The bind-pose meshes [`Model::gpu_mesh`] builds from (see [`Parts`]).
    fn gpu_parts(&self) -> Result<Parts, Error> {
        if self.num_bones() == 0 || self.is_vertex_animated() {
            return Err(Error::NotSkeletal);
        }
        if self.frames_replace_vertices() {
            return Err(Error::VertexFrames);
        }
        let mut pose = Pose::default();
        self.pose_bind(&mut pose);
        let (materials, _, made_from) = super::asset::materials(self, false, None);
        let mut built = Vec::new();
        for mesh in self.meshes() {
            let index = u32::try_from(mesh.index()).map_err(|_| Error::TooManyVertices {
                vertices: self.num_vertices(),
            })?;
            let parts =
                super::asset::mesh_parts(self, &mesh, &pose, true, (&materials, &made_from))?;
            for super::asset::Part {
                mesh: part, picked, ..
            } in parts
            {
                built.push((part, index, picked));
            }
        }
        Ok((built, pose.palette().world.clone()))
    }

    /// The buffers of `built` bound by `binds`, judging [`gpu::Influences::Within`] over
    /// every frame of the model.
    fn gpu_build(
        &self,
        built: &[(asset::Mesh, u32, Vec<u32>)],
        binds: &[Affine3A],
        options: &gpu::Options,
    ) -> Result<gpu::Mesh, Error> {
        let parts: Vec<Part<'_>> = built
            .iter()
            .map(|(mesh, index, picked)| Part {
                mesh,
                sources: picked.iter().map(|&v| [*index, v]).collect(),
            })
            .collect();
        let frames = self.num_frames();
        let mut pose = Pose::default();
        gpu::Mesh::build(&parts, binds, options, |f, out| {
            if f >= frames {
                return None;
            }
            self.pose(f, f, 0.0, Interpolation::Nlerp, &mut pose).ok()?;
            out.clone_from(&pose.record_palette().world);
            Some(())
        })
    }
}
