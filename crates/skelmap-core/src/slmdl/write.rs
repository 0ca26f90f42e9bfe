//! Writing SL `mdl` and `.anim` files (conversions through `Builder::from_asset`, fixtures
//! and fuzz seeds). Writes exactly what it is given; the parsers judge.

use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, LittleEndian, U32};

use super::raw::{AnimHeader, BoneKey, Header, KeyframeHead, MAX_ATTRIBUTES, SLMDL_MAGIC};
use super::view::{AttributeKind, Easing};

use glam::Affine3A;

use crate::asset::cut::{Cut, SkinFrames};
use crate::asset::{Asset, FitError, Fitted, UpAxis};
use crate::view::NAMED_CLIP_FPS;

type Le = LittleEndian;

/// One vertex of the D3D9-style layout [`MeshBuilder::skinned`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VertexDef {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
    /// The first three blend weights (the fourth is `1 − Σ`).
    pub weights: [f32; 3],
    /// Four bone indices.
    pub indices: [u8; 4],
    /// Texture coordinate.
    pub texcoord: [f32; 2],
}

/// Builds an SL `mdl`: a declaration and the interleaved vertex bytes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshBuilder {
    /// Bounding-sphere radius.
    pub radius: f32,
    /// Attribute `(type code, size)` pairs, at most 16 are written.
    pub attributes: Vec<(u8, u8)>,
    /// Number of vertices (the header's count).
    pub vertex_count: u32,
    /// The interleaved vertex bytes, written as given.
    pub vertices: Vec<u8>,
}

impl MeshBuilder {
    /// The D3D9-style layout: position, normal, three blend weights, four blend indices and a
    /// texcoord (48 bytes per vertex), from per-vertex values.
    #[must_use]
    pub fn skinned(vertices: &[VertexDef]) -> Self {
        let mut bytes = Vec::with_capacity(vertices.len() * 48);
        let mut radius = 0.0f32;
        for v in vertices {
            let (p, n, w, i, uv) = (&v.position, &v.normal, &v.weights, &v.indices, &v.texcoord);
            radius = radius.max((p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt());
            for f in p.iter().chain(n).chain(w) {
                bytes.extend_from_slice(F32::<Le>::new(*f).as_bytes());
            }
            bytes.extend_from_slice(i);
            for f in uv {
                bytes.extend_from_slice(F32::<Le>::new(*f).as_bytes());
            }
        }
        MeshBuilder {
            radius,
            attributes: [
                (AttributeKind::Position, 12),
                (AttributeKind::Normal, 12),
                (AttributeKind::BlendWeights, 12),
                (AttributeKind::BlendIndices, 4),
                (AttributeKind::Texcoord, 8),
            ]
            .map(|(k, s)| (k.code(), s))
            .to_vec(),
            vertex_count: vertices.len() as u32,
            vertices: bytes,
        }
    }

    /// Writes the file; the vertex size written is the sum of the attribute sizes.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        let n = self.attributes.len().min(MAX_ATTRIBUTES);
        let mut types = [0u8; MAX_ATTRIBUTES];
        let mut sizes = [0u8; MAX_ATTRIBUTES];
        for (k, &(t, s)) in self.attributes.iter().take(n).enumerate() {
            types[k] = t;
            sizes[k] = s;
        }
        let header = Header {
            magic: *SLMDL_MAGIC,
            vertex_count: U32::new(self.vertex_count),
            vertex_size: U32::new(sizes.iter().map(|&s| u32::from(s)).sum()),
            radius: F32::new(self.radius),
            attribute_count: U32::new(n as u32),
            attribute_types: types,
            attribute_sizes: sizes,
        };
        let mut out = header.as_bytes().to_vec();
        out.extend_from_slice(&self.vertices);
        out
    }
}

/// One keyframe to write.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyframeDef {
    /// Start time in seconds.
    pub time: f32,
    /// Easing towards the next keyframe.
    pub easing: Easing,
    /// Per bone `(rotation (x, y, z, w), translation)`; missing bones are the identity.
    pub bones: Vec<([f32; 4], [f32; 3])>,
}

/// Builds an SL `.anim`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnimationBuilder {
    /// Bones per keyframe.
    pub bones: u32,
    /// Keyframes, in time order.
    pub keyframes: Vec<KeyframeDef>,
}

impl AnimationBuilder {
    /// Writes the file.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        let header = AnimHeader {
            bone_count: U32::new(self.bones),
            keyframe_count: U32::new(self.keyframes.len() as u32),
        };
        let mut out = header.as_bytes().to_vec();
        for k in &self.keyframes {
            let poses = &k.bones;
            let head = KeyframeHead {
                time: F32::new(k.time),
                easing: U32::new(k.easing.id()),
            };
            out.extend_from_slice(head.as_bytes());
            for b in 0..self.bones as usize {
                let (r, t) = poses
                    .get(b)
                    .copied()
                    .unwrap_or(([0.0, 0.0, 0.0, 1.0], [0.0; 3]));
                let key = BoneKey {
                    rotation: r.map(F32::new),
                    translation: t.map(F32::new),
                };
                out.extend_from_slice(key.as_bytes());
            }
        }
        out
    }
}

/// An SL `mdl` and its `.anim`, ready to write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Builder {
    /// The mesh.
    pub mesh: MeshBuilder,
    /// The animation (`None` for an asset without a skeleton).
    pub animation: Option<AnimationBuilder>,
}

/// Bones an SL vertex can name: its blend indices are bytes.
pub const MAX_BONES: usize = 256;

impl Builder {
    /// `asset` as an SL `mdl` and `.anim`: every triangle corner a vertex of the 48-byte D3D9
    /// layout (the format has no indices), four influences chosen by their error over the
    /// asset's frames ([`Influences::cut`](crate::asset::Influences::cut)) with the first
    /// three weights stored; keyframe 0 the bind pose (the format's rule) and then every frame of
    /// every clip at the first clip's rate, each bone's model-space rotation and translation
    /// (the format has no hierarchy). Losses, in words: more than four influences, clips
    /// joined on one timeline (the format names none), scale.
    ///
    /// ```
    /// use skelmap_core::{Model, asset, slmdl, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let pair = slmdl::write::Builder::from_asset(&asset)?.builder;
    /// assert_eq!(pair.mesh.vertex_count, 3 * 256);
    /// assert_eq!(pair.animation.map(|a| a.keyframes.len()), Some(10)); // bind + 9 frames
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for more than [`MAX_BONES`] joints, or for vertex animation.
    pub fn from_asset(asset: &Asset) -> Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        // A vertex bound to no joint stays put on a joint added for it.
        let (asset, still) = asset.with_still_joint();
        asset.refuse_vertex_animation("SL")?;
        let joints = asset.skeleton.as_ref().map_or(0, |s| s.joints.len());
        if joints > MAX_BONES {
            return Err(FitError::new(
                "SL",
                format!("{joints} joints"),
                format!("its blend indices are bytes: at most {MAX_BONES} bones"),
                "drop unused bones with `skelmap optimize`, or convert to DPM or IQM",
            ));
        }
        let mut losses = Vec::new();
        losses.extend(still);
        let frames = SkinFrames::of_asset(&asset);
        let mut cuts = Cut::default();
        let mut corners = Vec::with_capacity(3 * asset.num_triangles());
        for mesh in &asset.meshes {
            let cut = mesh.influences.cut(&mesh.positions, 4, &frames);
            cuts.add(&cut);
            for &v in mesh.triangles.iter().flatten() {
                let v = v as usize;
                let top = cut.influences.of(v);
                let (mut weights, mut indices) = ([0.0f32; 3], [0u8; 4]);
                for (k, &(j, w)) in top.iter().enumerate() {
                    indices[k] = u8::try_from(j).unwrap_or(0);
                    if let Some(slot) = weights.get_mut(k) {
                        *slot = w;
                    }
                }
                if top.is_empty() {
                    weights[0] = 1.0;
                }
                corners.push(VertexDef {
                    position: mesh.positions.get(v).copied().unwrap_or_default(),
                    normal: mesh.normals.get(v).copied().unwrap_or_default(),
                    weights,
                    indices,
                    texcoord: mesh.uv(v),
                });
            }
        }
        losses.extend(cuts.notes("vertices"));
        let animation = asset.skeleton.as_ref().map(|skeleton| {
            // A frame that scales a joint to nothing keeps its rotation as the identity.
            let key = |m: &Affine3A| {
                let (rotation, translation) = crate::asset::rotation_translation(m);
                (rotation.to_array(), translation.to_array())
            };
            let fps = asset
                .clips
                .first()
                .map_or(NAMED_CLIP_FPS, |c| c.fps)
                .clamp(1e-3, 1e6);
            let mut keyframes = vec![KeyframeDef {
                time: 0.0,
                easing: Easing::Linear,
                bones: skeleton.joints.iter().map(|j| key(&j.world)).collect(),
            }];
            for (f, keys) in asset.joint_frames().unwrap_or_default().iter().enumerate() {
                keyframes.push(KeyframeDef {
                    time: (f + 1) as f32 / fps,
                    easing: Easing::Linear,
                    bones: skeleton.world(keys).iter().map(key).collect(),
                });
            }
            AnimationBuilder {
                bones: joints.max(1) as u32,
                keyframes,
            }
        });
        if asset.clips.len() > 1 {
            losses.push(format!(
                "{} clips were joined on the .anim's one timeline, which names no clips",
                asset.clips.len()
            ));
        }
        let scaled = asset.skeleton.iter().flat_map(|s| &s.joints).any(|j| {
            let (scale, _, _) = j.world.to_scale_rotation_translation();
            (scale - glam::Vec3::ONE).abs().max_element() > 1e-4
        });
        let frames = asset.scaled_frames();
        if scaled || frames > 0 {
            losses.push(format!(
                "{frames} frames scale a bone (or the bind pose does); SL keys have no                  scale, so those frames differ (IQM keeps scale)"
            ));
        }
        Ok(Fitted {
            builder: Builder {
                mesh: MeshBuilder::skinned(&corners),
                animation,
            },
            losses,
        })
    }
}

impl crate::asset::Writer for Builder {
    const FORMAT: crate::format::Format = crate::format::Format::SlMdl;

    /// The mesh, and its `.anim` beside it when the asset has a skeleton (whose keyframe 0
    /// is the bind pose: the asset's first frame is the animation's second).
    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> Result<crate::asset::Written, crate::asset::WriteError> {
        use crate::asset::{Place, Written, WrittenFile};
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        let mut files = vec![WrittenFile {
            place: Place::Main,
            bytes: builder.mesh.write(),
        }];
        if let Some(animation) = &builder.animation {
            files.push(WrittenFile {
                place: Place::Extension("anim"),
                bytes: animation.write(),
            });
        }
        let mut written = Written::new(Self::FORMAT, files).with_notes(losses);
        written.first_frame = usize::from(asset.skeleton.is_some());
        Ok(written)
    }
}
