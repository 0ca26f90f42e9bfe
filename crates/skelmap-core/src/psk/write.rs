//! [`Builder`]: writes a PSK (and the PSA of its animations) from points, wedges, faces,
//! materials, a reference skeleton and raw weights given in right-handed axes, mirrored into
//! Unreal's on the way (`docs/formats/psk.md` § Writer order). Fixtures, fuzz seeds and
//! conversions use it.

use glam::Quat;
use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, I32, LittleEndian, U16, U32};

use super::raw::{
    AnimInfoBinary, FNamedBoneBinary, VChunkHeader, VColor, VJointPos, VMaterial, VMeshUV, VNormal,
    VPoint, VQuatAnimKey, VRawBoneInfluence, VTriangle16, VTriangle32, VVertex,
};
use crate::asset::{Asset, FitError, Fitted, UpAxis, free_name_among};
use crate::error::{Error, Result};
use crate::format::Format;
use crate::name::CodePage;

/// The longest name a 64-byte field holds with its NUL.
pub const MAX_NAME: usize = 63;

/// The `TypeFlag` written in every chunk header (the date UE Viewer writes, `20100422`).
pub const TYPE_FLAG: u32 = 20_100_422;

/// One bone of the reference skeleton (and of the PSA).
#[derive(Debug, Clone, PartialEq)]
pub struct BoneDef {
    /// Name, at most 63 bytes.
    pub name: String,
    /// Parent bone, `None` for the root; only bone 0 may be the root, and a parent comes
    /// before its child.
    pub parent: Option<u32>,
    /// Rest rotation relative to the parent, in right-handed axes (as the reader reports it).
    pub rotation: Quat,
    /// Rest translation relative to the parent, in right-handed axes.
    pub translation: [f32; 3],
}

/// One wedge: a vertex of the mesh.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WedgeDef {
    /// The point.
    pub point: u32,
    /// Texture coordinate (`V` downwards).
    pub texcoord: [f32; 2],
    /// Material.
    pub material: u8,
}

/// One face.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceDef {
    /// Three wedges, counter-clockwise seen from the front in right-handed axes (stored in
    /// the reverse order).
    pub wedges: [u32; 3],
    /// Material.
    pub material: u8,
    /// Smoothing-group bits.
    pub smoothing: u32,
}

/// One raw weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightDef {
    /// The point.
    pub point: u32,
    /// The bone.
    pub bone: u32,
    /// The weight.
    pub weight: f32,
}

/// One sequence of the PSA.
#[derive(Debug, Clone, PartialEq)]
pub struct SequenceDef {
    /// Name, at most 63 bytes.
    pub name: String,
    /// Group, at most 63 bytes.
    pub group: String,
    /// First frame of [`Builder::frames`].
    pub first_frame: u32,
    /// Number of frames.
    pub num_frames: u32,
    /// Frames per second.
    pub rate: f32,
}

/// A PSK and its PSA, ready to write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Builder {
    /// Points, in right-handed axes.
    pub points: Vec<[f32; 3]>,
    /// Wedges.
    pub wedges: Vec<WedgeDef>,
    /// Faces.
    pub faces: Vec<FaceDef>,
    /// Material names, at most 63 bytes each.
    pub materials: Vec<String>,
    /// The reference skeleton.
    pub bones: Vec<BoneDef>,
    /// Raw weights.
    pub weights: Vec<WeightDef>,
    /// Per point normals (`VTXNORMS`), empty for none.
    pub normals: Vec<[f32; 3]>,
    /// Per wedge RGBA colours (`VERTEXCOLOR`), empty for none.
    pub colors: Vec<[u8; 4]>,
    /// Extra texture-coordinate sets (`EXTRAUVS0` …), each per wedge.
    pub extra_uvs: Vec<Vec<[f32; 2]>>,
    /// Write PSKX's 32-bit indices (`VTXW3200`, `FACE3200`) even when 16 bits would do (they
    /// are written anyway past 65 536 wedges or points).
    pub wide: bool,
    /// The PSA's frames: per frame, per bone of [`bones`](Builder::bones), the rotation and
    /// translation relative to the parent in right-handed axes.
    pub frames: Vec<Vec<(Quat, [f32; 3])>>,
    /// The PSA's sequences.
    pub sequences: Vec<SequenceDef>,
    /// The code page the names are stored in ([`Asset::code_page`] for a builder made
    /// from an asset).
    pub code_page: CodePage,
}

/// A rotation as the file stores it: mirrored into Unreal's axes, conjugated for every bone
/// but the root (the inverse of the reader's).
fn stored_rotation(q: Quat, root: bool) -> [f32; 4] {
    if root {
        [-q.x, q.y, -q.z, q.w]
    } else {
        [q.x, -q.y, q.z, q.w]
    }
}

fn f(v: f32) -> F32<LittleEndian> {
    F32::new(v)
}

fn mirrored(v: [f32; 3]) -> [F32<LittleEndian>; 3] {
    [f(v[0]), f(-v[1]), f(v[2])]
}

/// A name in `code_page` in a 64-byte NUL-padded field, or [`Error::Write`] past 63 bytes.
fn name64(code_page: CodePage, what: &'static str, name: &str) -> Result<[u8; 64]> {
    let bytes = &*code_page.encode(name);
    if bytes.len() > MAX_NAME {
        return Err(Error::Write {
            format: Format::Psk,
            what,
            value: bytes.len() as u64,
            max: MAX_NAME as u64,
        });
    }
    let mut field = [0u8; 64];
    field[..bytes.len()].copy_from_slice(bytes);
    Ok(field)
}

/// `value` as an `int`, or [`Error::Write`].
fn int(what: &'static str, value: usize) -> Result<I32<LittleEndian>> {
    i32::try_from(value)
        .map(I32::new)
        .map_err(|_| Error::Write {
            format: Format::Psk,
            what,
            value: value as u64,
            max: i32::MAX as u64,
        })
}

/// Appends a chunk header and its records.
fn chunk<T: IntoBytes + zerocopy::Immutable>(
    out: &mut Vec<u8>,
    id: &str,
    records: &[T],
) -> Result<()> {
    let mut name = [0u8; 20];
    name[..id.len()].copy_from_slice(id.as_bytes());
    let header = VChunkHeader {
        chunk_id: name,
        type_flag: U32::new(TYPE_FLAG),
        data_size: int(
            "chunk.data_size",
            if records.is_empty() {
                0
            } else {
                size_of::<T>()
            },
        )?,
        data_count: int("chunk.data_count", records.len())?,
    };
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(records.as_bytes());
    Ok(())
}

/// Appends a header chunk (`ACTRHEAD`, `ANIMHEAD`): no records.
fn head(out: &mut Vec<u8>, id: &str) -> Result<()> {
    chunk::<VPoint>(out, id, &[])
}

fn bone_record(
    code_page: CodePage,
    b: &BoneDef,
    index: usize,
    children: usize,
) -> Result<FNamedBoneBinary> {
    let parent = match b.parent {
        None => 0,
        Some(p) => int("bone.parent_index", p as usize)?.get(),
    };
    Ok(FNamedBoneBinary {
        name: name64(code_page, "bone.name", &b.name)?,
        flags: U32::new(0),
        num_children: int("bone.num_children", children)?,
        parent_index: I32::new(parent),
        bone_pos: VJointPos {
            orientation: stored_rotation(b.rotation, index == 0).map(f),
            position: mirrored(b.translation),
            length: f(0.0),
            x_size: f(0.0),
            y_size: f(0.0),
            z_size: f(0.0),
        },
    })
}

impl Builder {
    /// A small model: two bones (a root and a child 1 unit up `+Z`, turned a quarter about
    /// `Z`), a quad of four points and wedges in two faces of two materials, the top points
    /// weighted half to each bone, and a PSA of three frames in two sequences.
    #[must_use]
    pub fn example() -> Builder {
        let quarter = Quat::from_rotation_z(core::f32::consts::FRAC_PI_2);
        let bones = vec![
            BoneDef {
                name: "root".into(),
                parent: None,
                rotation: Quat::IDENTITY,
                translation: [0.0, 0.0, 0.0],
            },
            BoneDef {
                name: "arm".into(),
                parent: Some(0),
                rotation: quarter,
                translation: [0.0, 0.0, 1.0],
            },
        ];
        let points = vec![
            [0.0, -1.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 1.0, 2.0],
            [0.0, -1.0, 2.0],
        ];
        let wedges = (0..4)
            .map(|i| WedgeDef {
                point: i,
                texcoord: [(i % 2) as f32, (i / 2) as f32],
                material: u8::from(i >= 2),
            })
            .collect();
        let faces = vec![
            FaceDef {
                wedges: [0, 1, 2],
                material: 0,
                smoothing: 1,
            },
            FaceDef {
                wedges: [0, 2, 3],
                material: 1,
                smoothing: 1,
            },
        ];
        let mut weights = vec![
            WeightDef {
                point: 0,
                bone: 0,
                weight: 1.0,
            },
            WeightDef {
                point: 1,
                bone: 0,
                weight: 1.0,
            },
        ];
        for point in [2, 3] {
            for bone in [0, 1] {
                weights.push(WeightDef {
                    point,
                    bone,
                    weight: 0.5,
                });
            }
        }
        let frame = |angle: f32, lift: f32| {
            vec![
                (Quat::IDENTITY, [0.0, 0.0, lift]),
                (Quat::from_rotation_z(angle) * quarter, [0.0, 0.0, 1.0]),
            ]
        };
        Builder {
            points,
            wedges,
            faces,
            materials: vec!["skin".into(), "cloth".into()],
            bones,
            weights,
            frames: vec![frame(0.0, 0.0), frame(0.5, 0.25), frame(1.0, 0.5)],
            sequences: vec![
                SequenceDef {
                    name: "idle".into(),
                    group: "none".into(),
                    first_frame: 0,
                    num_frames: 1,
                    rate: 10.0,
                },
                SequenceDef {
                    name: "wave".into(),
                    group: "none".into(),
                    first_frame: 1,
                    num_frames: 2,
                    rate: 20.0,
                },
            ],
            ..Builder::default()
        }
    }

    /// Whether the PSK is written with PSKX's 32-bit indices.
    #[must_use]
    pub fn is_wide(&self) -> bool {
        self.wide || self.wedges.len() > 65_536 || self.points.len() > 65_536
    }

    /// The PSK's bytes: `ACTRHEAD`, `PNTS0000`, `VTXW0000` (or `VTXW3200`), `FACE0000` (or
    /// `FACE3200`), `MATT0000`, `REFSKELT`, `RAWWEIGHTS`, then the optional `VTXNORMS`,
    /// `VERTEXCOLOR` and `EXTRAUVS<n>`.
    ///
    /// ```
    /// let bytes = skelmap_core::psk::Builder::example().write_psk()?;
    /// assert!(bytes.starts_with(b"ACTRHEAD\0"));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Write`] for a name past [`MAX_NAME`] bytes or a count past a field's range.
    pub fn write_psk(&self) -> Result<Vec<u8>> {
        let wide = self.is_wide();
        let mut out = Vec::new();
        head(&mut out, "ACTRHEAD")?;
        let points: Vec<VPoint> = self
            .points
            .iter()
            .map(|&p| VPoint { point: mirrored(p) })
            .collect();
        chunk(&mut out, "PNTS0000", &points)?;
        let wedges: Vec<VVertex> = self
            .wedges
            .iter()
            .map(|w| VVertex {
                point_index: U32::new(w.point),
                u: f(w.texcoord[0]),
                v: f(w.texcoord[1]),
                mat_index: w.material,
                reserved: 0,
                pad: U16::new(0),
            })
            .collect();
        chunk(
            &mut out,
            if wide { "VTXW3200" } else { "VTXW0000" },
            &wedges,
        )?;
        if wide {
            let faces: Vec<VTriangle32> = self
                .faces
                .iter()
                .map(|t| {
                    let [a, b, c] = t.wedges;
                    VTriangle32 {
                        wedge_index: [c, b, a].map(U32::new),
                        mat_index: t.material,
                        aux_mat_index: 0,
                        smoothing_groups: U32::new(t.smoothing),
                    }
                })
                .collect();
            chunk(&mut out, "FACE3200", &faces)?;
        } else {
            let faces: Vec<VTriangle16> = self
                .faces
                .iter()
                .map(|t| {
                    let [a, b, c] = t.wedges;
                    VTriangle16 {
                        wedge_index: [c, b, a].map(|w| U16::new(w as u16)),
                        mat_index: t.material,
                        aux_mat_index: 0,
                        smoothing_groups: U32::new(t.smoothing),
                    }
                })
                .collect();
            chunk(&mut out, "FACE0000", &faces)?;
        }
        let materials = self
            .materials
            .iter()
            .enumerate()
            .map(|(i, m)| {
                Ok(VMaterial {
                    material_name: name64(self.code_page, "material.material_name", m)?,
                    texture_index: int("material.texture_index", i)?,
                    poly_flags: U32::new(0),
                    aux_material: I32::new(0),
                    aux_flags: U32::new(0),
                    lod_bias: I32::new(0),
                    lod_style: I32::new(0),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        chunk(&mut out, "MATT0000", &materials)?;
        chunk(&mut out, "REFSKELT", &self.bone_records()?)?;
        let weights = self
            .weights
            .iter()
            .map(|w| {
                Ok(VRawBoneInfluence {
                    weight: f(w.weight),
                    point_index: int("weight.point_index", w.point as usize)?,
                    bone_index: int("weight.bone_index", w.bone as usize)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        chunk(&mut out, "RAWWEIGHTS", &weights)?;
        if !self.normals.is_empty() {
            let normals: Vec<VNormal> = self
                .normals
                .iter()
                .map(|&n| VNormal {
                    normal: mirrored(n),
                })
                .collect();
            chunk(&mut out, "VTXNORMS", &normals)?;
        }
        if !self.colors.is_empty() {
            let colors: Vec<VColor> = self
                .colors
                .iter()
                .map(|&[r, g, b, a]| VColor { b, g, r, a })
                .collect();
            chunk(&mut out, "VERTEXCOLOR", &colors)?;
        }
        for (set, uvs) in self.extra_uvs.iter().enumerate() {
            let uvs: Vec<VMeshUV> = uvs
                .iter()
                .map(|&[u, v]| VMeshUV { u: f(u), v: f(v) })
                .collect();
            chunk(&mut out, &format!("EXTRAUVS{set}"), &uvs)?;
        }
        Ok(out)
    }

    fn bone_records(&self) -> Result<Vec<FNamedBoneBinary>> {
        // Every bone's children counted in one pass over the parents.
        let mut children = vec![0usize; self.bones.len()];
        for b in &self.bones {
            if let Some(count) = b.parent.and_then(|p| children.get_mut(p as usize)) {
                *count += 1;
            }
        }
        self.bones
            .iter()
            .zip(children)
            .enumerate()
            .map(|(i, (b, children))| bone_record(self.code_page, b, i, children))
            .collect()
    }

    /// The PSA's bytes: `ANIMHEAD`, `BONENAMES` (the reference skeleton), `ANIMINFO` (the
    /// sequences) and `ANIMKEYS` (every frame's keys, frame by frame).
    ///
    /// ```
    /// let bytes = skelmap_core::psk::Builder::example().write_psa()?;
    /// assert!(bytes.starts_with(b"ANIMHEAD\0"));
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Write`] for a name past [`MAX_NAME`] bytes or a count past a field's range.
    pub fn write_psa(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        head(&mut out, "ANIMHEAD")?;
        chunk(&mut out, "BONENAMES", &self.bone_records()?)?;
        let num_bones = self.bones.len();
        let infos = self
            .sequences
            .iter()
            .map(|s| {
                Ok(AnimInfoBinary {
                    name: name64(self.code_page, "info.name", &s.name)?,
                    group: name64(self.code_page, "info.group", &s.group)?,
                    total_bones: int("info.total_bones", num_bones)?,
                    root_include: I32::new(0),
                    key_compression_style: I32::new(0),
                    key_quotum: int(
                        "info.key_quotum",
                        (s.num_frames as usize).saturating_mul(num_bones),
                    )?,
                    key_reduction: f(1.0),
                    track_time: f(s.num_frames as f32),
                    anim_rate: f(s.rate),
                    start_bone: I32::new(0),
                    first_raw_frame: int("info.first_raw_frame", s.first_frame as usize)?,
                    num_raw_frames: int("info.num_raw_frames", s.num_frames as usize)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        chunk(&mut out, "ANIMINFO", &infos)?;
        let mut keys = Vec::with_capacity(self.frames.len() * num_bones);
        for frame in &self.frames {
            for b in 0..num_bones {
                let (q, t) = frame.get(b).copied().unwrap_or((Quat::IDENTITY, [0.0; 3]));
                keys.push(VQuatAnimKey {
                    position: mirrored(t),
                    orientation: stored_rotation(q, b == 0).map(f),
                    time: f(1.0),
                });
            }
        }
        chunk(&mut out, "ANIMKEYS", &keys)?;
        Ok(out)
    }
}

impl Builder {
    /// A builder for `asset`: its joints as the reference skeleton (their bind rotation and
    /// translation), every vertex of every mesh a point and a wedge, a material per mesh,
    /// each vertex's influences as raw weights; its frames (the clips laid end to end) as the
    /// PSA's keys and its clips as sequences. What PSK cannot keep is said in the losses:
    /// joint scale, influences past the 8 a point keeps.
    ///
    /// # Errors
    ///
    /// [`FitError`] for a bone, material or clip name longer than [`MAX_NAME`] bytes, more
    /// than 256 meshes (a face's material is a byte), or vertex animation.
    pub fn from_asset(asset: &Asset) -> core::result::Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        // A vertex bound to no joint stays put on a joint added for it.
        let (asset, still) = asset.with_still_joint();
        asset.refuse_vertex_animation("PSK")?;
        let skeleton = asset.skeleton_or_root();
        asset.check_names(
            "PSK",
            "bone",
            skeleton.joints.iter().map(|j| j.name.as_str()),
            MAX_NAME,
        )?;
        asset.check_names(
            "PSK",
            "clip",
            asset.clips.iter().map(|c| c.name.as_str()),
            MAX_NAME,
        )?;
        let materials = asset.shader_names("PSK", MAX_NAME)?;
        if asset.meshes.len() > 256 {
            return Err(FitError::new(
                "PSK",
                format!("{} meshes", asset.meshes.len()),
                "256 (a face's material is a byte)",
                "merge meshes that share a material",
            ));
        }
        let mut losses = Vec::new();
        losses.extend(still);
        // Bone 0 is a PSK's only root: several roots hang from a bone added before them, at
        // the origin in every frame, and every other bone moves up by one.
        let parent = |i: usize| skeleton.joints[i].parent.filter(|&p| p < i);
        let roots = (0..skeleton.joints.len())
            .filter(|&i| parent(i).is_none())
            .count();
        let shift = usize::from(roots > 1);
        // A PSA's keys find their bones by name, ASCII case ignored: a name an earlier joint
        // has would take that joint's keys.
        let (names, renamed) = skeleton.distinct_names(MAX_NAME, true);
        losses.extend(renamed.into_iter().map(|(i, name, taken)| {
            if taken.is_empty() {
                format!(
                    "joint {i} has no name and is named '{name}': a PSA's keys find their \
                     bones by name"
                )
            } else {
                format!(
                    "joint {i} is renamed '{name}': a PSA's keys find their bones by name, and \
                     '{taken}' is taken"
                )
            }
        }));
        let mut bones = Vec::with_capacity(skeleton.joints.len() + shift);
        if shift == 1 {
            // Named apart from the joints' names as written, renamed ones included.
            let name = free_name_among(names.iter().map(String::as_str), "root");
            losses.push(format!(
                "the {roots} root joints hang from a bone '{name}' added at the origin: a PSK \
                 has one root"
            ));
            bones.push(BoneDef {
                name,
                parent: None,
                rotation: Quat::IDENTITY,
                translation: [0.0; 3],
            });
        }
        bones.extend(
            skeleton
                .joints
                .iter()
                .zip(names)
                .enumerate()
                .map(|(i, (j, name))| BoneDef {
                    name,
                    parent: match parent(i) {
                        Some(p) => Some((p + shift) as u32),
                        None => (shift == 1).then_some(0),
                    },
                    rotation: j.rotation,
                    translation: j.translation.to_array(),
                }),
        );
        let mut b = Builder {
            bones,
            materials,
            code_page: asset.code_page,
            ..Builder::default()
        };
        // Mesh positions are in the pose the joints' world transforms give; the reference
        // skeleton is rebuilt from their local parts, so a joint that scales is dropped.
        let scaled = skeleton.scaled_joints();
        if scaled > 0 {
            losses.push(format!(
                "{scaled} joints scale in the bind pose; PSK bones do not scale, so the \
                 reference skeleton leaves their scale out"
            ));
        }
        let (mut capped, mut unbound, mut normals) = (0usize, 0usize, true);
        let joints = skeleton.joints.len();
        let mut colors = asset.meshes.iter().any(|m| m.colors.is_some());
        for (m, mesh) in asset.meshes.iter().enumerate() {
            let base = b.points.len() as u32;
            let uvs = mesh.uvs_or_zero();
            normals &= mesh.normals.len() == mesh.positions.len();
            for (v, p) in mesh.positions.iter().enumerate() {
                let point = base + v as u32;
                b.points.push(*p);
                b.wedges.push(WedgeDef {
                    point,
                    texcoord: uvs.get(v).copied().unwrap_or_default(),
                    material: m as u8,
                });
                let influences = mesh.influences.of(v);
                capped += usize::from(influences.len() > crate::pose::MAX_BIND_INFLUENCES);
                let mut bound = false;
                for &(bone, weight) in influences {
                    // `UNBOUND`: no joint of the skeleton.
                    if usize::from(bone) < joints {
                        b.weights.push(WeightDef {
                            point,
                            bone: u32::from(bone) + shift as u32,
                            weight,
                        });
                        bound = true;
                    }
                }
                if !bound && !influences.is_empty() {
                    unbound += 1;
                    b.weights.push(WeightDef {
                        point,
                        bone: 0,
                        weight: 1.0,
                    });
                }
                if colors {
                    let c = mesh.colors.as_ref().and_then(|c| c.get(v).copied());
                    b.colors.push(c.unwrap_or([255; 4]));
                }
            }
            b.faces.extend(mesh.triangles.iter().map(|t| FaceDef {
                wedges: t.map(|i| i + base),
                material: m as u8,
                smoothing: 1,
            }));
        }
        if normals && !b.points.is_empty() {
            b.normals = asset
                .meshes
                .iter()
                .flat_map(|m| m.normals.iter().copied())
                .collect();
        }
        colors &= !b.colors.is_empty();
        if !colors {
            b.colors.clear();
        }
        if capped > 0 {
            losses.push(format!(
                "{capped} vertices have more than 8 influences; readers keep the 8 heaviest"
            ));
        }
        if unbound > 0 {
            losses.push(format!(
                "{unbound} vertices bound to no joint are weighted wholly to bone 0 ('{}')",
                b.bones.first().map_or("", |bone| bone.name.as_str())
            ));
        }
        if let Some(frames) = asset.joint_frames() {
            let still = (Quat::IDENTITY, [0.0; 3]);
            b.frames = frames
                .iter()
                .map(|keys| {
                    let keys = keys.iter().map(|k| (k.rotation, k.translation.to_array()));
                    core::iter::repeat_n(still, shift).chain(keys).collect()
                })
                .collect();
            let mut first = 0u32;
            for clip in asset.clips.iter().filter(|c| !c.is_empty()) {
                let count = clip.len() as u32;
                b.sequences.push(SequenceDef {
                    name: clip.name.clone(),
                    group: String::new(),
                    first_frame: first,
                    num_frames: count,
                    rate: clip.fps,
                });
                first += count;
            }
            let frames_scaled = asset.scaled_frames();
            if frames_scaled > 0 {
                losses.push(format!(
                    "{frames_scaled} frames scale a joint; PSA keys do not scale (no SCALEKEYS \
                     are written)"
                ));
            }
        }
        Ok(Fitted { builder: b, losses })
    }
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Psk;

    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> core::result::Result<crate::asset::Written, crate::asset::WriteError> {
        use crate::asset::{Place, Written, WrittenFile};
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        let mut files = vec![WrittenFile {
            place: Place::Main,
            bytes: builder.write_psk()?,
        }];
        if !builder.frames.is_empty() {
            files.push(WrittenFile {
                place: Place::Extension("psa"),
                bytes: builder.write_psa()?,
            });
        }
        Ok(Written::new(Self::FORMAT, files).with_notes(losses))
    }
}
