//! [`Builder`]: writes Half-Life 1 studio models (fixtures, fuzz seeds), their texture files
//! and their sequence-group files, laid out as studiomdl lays them out: header, bones,
//! sequence groups, sequences, group 0's animations, body parts, models, meshes, vertex and
//! normal tables, triangle commands, textures with their pixels and palettes, skin table,
//! attachments. Animation channels are run-length encoded as studiomdl encodes them.

use std::collections::HashMap;

use glam::{Affine3A, Vec3};
use zerocopy::IntoBytes;

use super::raw::{self, STUDIO_VERSION};
use crate::asset::{Asset, FitError, Fitted, JointKey, Mesh, UpAxis};
use crate::error::{Error, Result};
use crate::format::Format;
use crate::name::CodePage;

/// A bone: name, parent (−1 for a root), default channel values and their scales.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneDef {
    /// Name (at most 31 bytes).
    pub name: String,
    /// Parent bone, −1 for a root; an earlier bone.
    pub parent: i32,
    /// Default X, Y, Z, roll, pitch, yaw.
    pub value: [f32; 6],
    /// Scales of the animation values per channel.
    pub scale: [f32; 6],
}

/// A sequence: its frames of per-bone channel values (`frames[f][bone][channel]`), each
/// multiplied by the bone's scale and added to its default when played.
#[derive(Debug, Clone, PartialEq)]
pub struct SequenceDef {
    /// Label (at most 31 bytes).
    pub label: String,
    /// Frames per second.
    pub fps: f32,
    /// Whether it loops.
    pub looping: bool,
    /// The sequence group (0: the model file).
    pub group: u32,
    /// Per frame, per bone, the six channel values.
    pub frames: Vec<Vec<[i16; 6]>>,
}

/// A vertex or normal of a model: its bone and point in that bone's space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexDef {
    /// The bone.
    pub bone: u8,
    /// The point (or direction).
    pub position: [f32; 3],
}

/// A vertex of a triangle command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrivertDef {
    /// The model vertex.
    pub vertex: i16,
    /// The model normal.
    pub normal: i16,
    /// Texel column.
    pub s: i16,
    /// Texel row.
    pub t: i16,
}

/// A triangle command: a strip, or a fan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandDef {
    /// A fan rather than a strip.
    pub fan: bool,
    /// Its vertices (at least 3).
    pub vertices: Vec<TrivertDef>,
}

/// A studio mesh: its skin reference and triangle commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshDef {
    /// The skin reference.
    pub skinref: i32,
    /// The commands.
    pub commands: Vec<CommandDef>,
}

/// A model of a body part.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelDef {
    /// Name (at most 63 bytes).
    pub name: String,
    /// Vertices.
    pub vertices: Vec<VertexDef>,
    /// Normals.
    pub normals: Vec<VertexDef>,
    /// Meshes.
    pub meshes: Vec<MeshDef>,
}

/// A body part: the models it chooses from. Its `base` is written as studiomdl writes it,
/// the product of the earlier parts' model counts, so that each body value below the product
/// of all of them shows one combination of models ([`Hl1::body_model`](super::Hl1::body_model)).
#[derive(Debug, Clone, PartialEq)]
pub struct BodyPartDef {
    /// Name (at most 63 bytes).
    pub name: String,
    /// Models.
    pub models: Vec<ModelDef>,
}

/// A texture: 8-bit pixels and their palette.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureDef {
    /// Name (at most 63 bytes).
    pub name: String,
    /// `STUDIO_NF_*` bits.
    pub flags: i32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// `width × height` palette indices.
    pub pixels: Vec<u8>,
    /// The palette.
    pub palette: [[u8; 3]; 256],
}

/// An attachment: a point in a bone's space.
#[derive(Debug, Clone, PartialEq)]
pub struct AttachmentDef {
    /// The name (at most 31 bytes; studiomdl leaves it empty, and GoldSrc reads no name).
    pub name: String,
    /// The bone.
    pub bone: i32,
    /// The point.
    pub org: [f32; 3],
}

/// A bone controller: what it moves of which bone, over which range, driven by which of the
/// entity's settings. The bone's channel it adjusts follows from `type_` (`STUDIO_X` … the
/// positions, `STUDIO_XR` … the angles), as studiomdl assigns it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControllerDef {
    /// The bone.
    pub bone: i32,
    /// `STUDIO_X`, `STUDIO_Y`, `STUDIO_Z`, `STUDIO_XR`, `STUDIO_YR` or `STUDIO_ZR`, with
    /// `STUDIO_RLOOP` for a turn that wraps around.
    pub type_: u32,
    /// The value at setting 0 (degrees for a turn).
    pub start: f32,
    /// The value at setting 255.
    pub end: f32,
    /// 0–3: the entity's controller; 4: the mouth.
    pub index: i32,
}

/// The bone channel a controller of type `type_` adjusts (0–2 the position along X, Y, Z, 3–5
/// the angles about X, Y, Z), as studiomdl assigns it; `None` for another type.
fn controller_channel(type_: u32) -> Option<usize> {
    match type_ & raw::STUDIO_TYPES {
        raw::STUDIO_X => Some(0),
        raw::STUDIO_Y => Some(1),
        raw::STUDIO_Z => Some(2),
        raw::STUDIO_XR => Some(3),
        raw::STUDIO_YR => Some(4),
        raw::STUDIO_ZR => Some(5),
        _ => None,
    }
}

/// Writes a Half-Life 1 model ([`write`](Builder::write)), its texture file
/// ([`write_textures`](Builder::write_textures)) and its sequence groups
/// ([`write_group`](Builder::write_group)).
///
/// ```
/// use skelmap_core::hl1::{Builder, Hl1};
/// use skelmap_core::Parse;
/// let bytes = Builder::example().write()?;
/// let model = Hl1::parse(&bytes)?;
/// assert_eq!((model.num_bones(), model.sequences().len()), (2, 2));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Builder {
    /// The model's name.
    pub name: String,
    /// Bones.
    pub bones: Vec<BoneDef>,
    /// Sequence group labels past group 0 (the model file).
    pub groups: Vec<String>,
    /// Sequences.
    pub sequences: Vec<SequenceDef>,
    /// Body parts.
    pub bodyparts: Vec<BodyPartDef>,
    /// Textures.
    pub textures: Vec<TextureDef>,
    /// Skin families: per family, per skin reference, a texture.
    pub skin_families: Vec<Vec<i16>>,
    /// Attachments.
    pub attachments: Vec<AttachmentDef>,
    /// Bone controllers.
    pub controllers: Vec<ControllerDef>,
    /// Write the textures and skin families to the texture file only
    /// ([`write_textures`](Builder::write_textures)), the model with none.
    pub textures_apart: bool,
    /// The model's bounds (`min`, `max`): the header's and every sequence's boxes, which the
    /// engine culls by; `None` writes the header's ±16 and empty sequence boxes.
    pub bounds: Option<([f32; 3], [f32; 3])>,
    /// The code page the names are stored in ([`Asset::code_page`] for a builder made
    /// from an asset).
    pub code_page: CodePage,
}

/// A 4×4 texture of indices `0..16` and a palette of `i → (i, 2i, 255 − i)`.
fn example_texture(name: &str, flags: i32) -> TextureDef {
    TextureDef {
        name: name.into(),
        flags,
        width: 4,
        height: 4,
        pixels: (0..16).collect(),
        palette: core::array::from_fn(|i| [i as u8, (2 * i) as u8, 255 - i as u8]),
    }
}

impl Builder {
    /// Two bones (a root and a child 10 units up +X, turned 90° in yaw by the animation),
    /// two sequences (`idle`, one frame; `turn`, looping, four frames whose channels take
    /// several runs), a body part of one model with a strip and a fan, two 4×4 textures, two
    /// skin families, an attachment.
    #[must_use]
    pub fn example() -> Builder {
        let tv = |vertex: i16, s: i16, t: i16| TrivertDef {
            vertex,
            normal: vertex.min(1),
            s,
            t,
        };
        let bones = vec![
            BoneDef {
                name: "root".into(),
                parent: -1,
                value: [0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
                scale: [0.5, 0.5, 0.5, 0.01, 0.01, 0.01],
            },
            BoneDef {
                name: "arm".into(),
                parent: 0,
                value: [10.0, 0.0, 0.0, 0.0, 0.0, 0.5],
                scale: [0.25, 0.25, 0.25, 0.02, 0.02, 0.02],
            },
        ];
        let turn: Vec<Vec<[i16; 6]>> = [0i16, 10, 10, 40]
            .iter()
            .map(|&k| vec![[k, 0, 0, 0, 0, k], [0, 0, 0, 0, 0, 2 * k]])
            .collect();
        Builder {
            name: "example".into(),
            bones,
            groups: Vec::new(),
            sequences: vec![
                SequenceDef {
                    label: "idle".into(),
                    fps: 10.0,
                    looping: false,
                    group: 0,
                    frames: vec![vec![[0; 6], [0; 6]]],
                },
                SequenceDef {
                    label: "turn".into(),
                    fps: 15.0,
                    looping: true,
                    group: 0,
                    frames: turn,
                },
            ],
            bodyparts: vec![BodyPartDef {
                name: "body".into(),
                models: vec![ModelDef {
                    name: "body".into(),
                    vertices: vec![
                        VertexDef {
                            bone: 0,
                            position: [0.0, 0.0, 0.0],
                        },
                        VertexDef {
                            bone: 0,
                            position: [4.0, 0.0, 0.0],
                        },
                        VertexDef {
                            bone: 1,
                            position: [0.0, 4.0, 0.0],
                        },
                        VertexDef {
                            bone: 1,
                            position: [4.0, 4.0, 0.0],
                        },
                        VertexDef {
                            bone: 1,
                            position: [2.0, 6.0, 1.0],
                        },
                    ],
                    normals: vec![
                        VertexDef {
                            bone: 0,
                            position: [0.0, 0.0, 1.0],
                        },
                        VertexDef {
                            bone: 1,
                            position: [0.0, 0.0, 1.0],
                        },
                    ],
                    meshes: vec![
                        MeshDef {
                            skinref: 0,
                            commands: vec![CommandDef {
                                fan: false,
                                vertices: vec![tv(0, 0, 0), tv(1, 4, 0), tv(2, 0, 4), tv(3, 4, 4)],
                            }],
                        },
                        MeshDef {
                            skinref: 1,
                            commands: vec![CommandDef {
                                fan: true,
                                vertices: vec![tv(4, 2, 2), tv(2, 0, 4), tv(3, 4, 4), tv(1, 4, 0)],
                            }],
                        },
                    ],
                }],
            }],
            textures: vec![
                example_texture("skin.bmp", 0),
                example_texture("chrome.bmp", raw::STUDIO_NF_CHROME as i32),
            ],
            skin_families: vec![vec![0, 1], vec![1, 0]],
            attachments: vec![AttachmentDef {
                name: String::new(),
                bone: 1,
                org: [1.0, 2.0, 3.0],
            }],
            controllers: Vec::new(),
            textures_apart: false,
            bounds: None,
            code_page: CodePage::Utf8,
        }
    }

    /// The model file.
    ///
    /// # Errors
    ///
    /// [`Error::Write`] where a name is too long, a count does not fit its field, or a
    /// sequence's values start past the 65,535 bytes an `mstudioanim_t` offset reaches.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.studio(!self.textures_apart, true)
    }

    /// The texture file (`<stem>T.mdl`): no bones, no body parts, the textures and skin
    /// families.
    ///
    /// # Errors
    ///
    /// As [`write`](Builder::write).
    pub fn write_textures(&self) -> Result<Vec<u8>> {
        self.studio(true, false)
    }

    /// Sequence group `g`'s file (`<stem>0g.mdl`, `IDSQ`): the animations of its sequences,
    /// at the offsets [`write`](Builder::write) gives them.
    ///
    /// # Errors
    ///
    /// As [`write`](Builder::write).
    pub fn write_group(&self, g: u32) -> Result<Vec<u8>> {
        let mut out = vec![0u8; size_of::<raw::StudioSeqHdr>()];
        for s in self.sequences.iter().filter(|s| s.group == g) {
            out.extend(self.anim_bytes(s)?);
        }
        let header = raw::StudioSeqHdr {
            id: *raw::HL1_SEQ_MAGIC,
            version: STUDIO_VERSION.into(),
            name: fixed(self.code_page, &format!("{}{g:02}.mdl", self.name))?,
            length: (out.len() as i32).into(),
        };
        out[..size_of::<raw::StudioSeqHdr>()].copy_from_slice(header.as_bytes());
        Ok(out)
    }

    /// Where each sequence's animations start in its group's file, as laid out there.
    fn anim_offsets(&self, base_main: usize) -> Result<Vec<usize>> {
        let mut next: Vec<usize> = vec![base_main];
        let mut out = Vec::new();
        for s in &self.sequences {
            let g = s.group as usize;
            if next.len() <= g {
                next.resize(g + 1, size_of::<raw::StudioSeqHdr>());
            }
            out.push(next[g]);
            next[g] += self.anim_bytes(s)?.len();
        }
        Ok(out)
    }

    /// A sequence's `mstudioanim_t` records (blend 0) and their runs, or [`Error::Write`]
    /// where a channel's runs start past the 65,535 bytes its record's offset reaches.
    fn anim_bytes(&self, s: &SequenceDef) -> Result<Vec<u8>> {
        let bones = self.bones.len();
        let mut records = vec![0u8; 12 * bones];
        let mut values: Vec<u8> = Vec::new();
        for b in 0..bones {
            for j in 0..6 {
                let channel: Vec<i16> = s
                    .frames
                    .iter()
                    .map(|f| f.get(b).map_or(0, |c| c[j]))
                    .collect();
                if channel.iter().all(|&v| v == 0) {
                    continue;
                }
                // Offsets count from the bone's record.
                let offset = 12 * (bones - b) + values.len();
                let offset = u16::try_from(offset)
                    .map_err(|_| too_many("mstudioanim_t.offset", offset, u16::MAX.into()))?;
                let at = 12 * b + 2 * j;
                records[at..at + 2].copy_from_slice(&offset.to_le_bytes());
                encode_runs(&channel, &mut values);
            }
        }
        records.extend(values);
        Ok(records)
    }

    fn studio(&self, with_textures: bool, with_model: bool) -> Result<Vec<u8>> {
        let mut out = vec![0u8; size_of::<raw::StudioHdr>()];
        let mut h = raw::StudioHdr {
            id: *raw::HL1_MAGIC,
            version: STUDIO_VERSION.into(),
            name: fixed(self.code_page, &format!("{}.mdl", self.name))?,
            length: 0.into(),
            eyeposition: [0.0.into(); 3],
            min: [0.0.into(); 3],
            max: [0.0.into(); 3],
            bbmin: [(-16.0).into(); 3],
            bbmax: [16.0.into(); 3],
            flags: 0.into(),
            numbones: 0.into(),
            boneindex: 0.into(),
            numbonecontrollers: 0.into(),
            bonecontrollerindex: 0.into(),
            numhitboxes: 0.into(),
            hitboxindex: 0.into(),
            numseq: 0.into(),
            seqindex: 0.into(),
            numseqgroups: 0.into(),
            seqgroupindex: 0.into(),
            numtextures: 0.into(),
            textureindex: 0.into(),
            texturedataindex: 0.into(),
            numskinref: 0.into(),
            numskinfamilies: 0.into(),
            skinindex: 0.into(),
            numbodyparts: 0.into(),
            bodypartindex: 0.into(),
            numattachments: 0.into(),
            attachmentindex: 0.into(),
            soundtable: 0.into(),
            soundindex: 0.into(),
            soundgroups: 0.into(),
            soundgroupindex: 0.into(),
            numtransitions: 0.into(),
            transitionindex: 0.into(),
        };
        let (seq_min, seq_max) = self.bounds.unwrap_or_default();
        if let Some((min, max)) = self.bounds {
            (h.min, h.max) = (min.map(Into::into), max.map(Into::into));
            (h.bbmin, h.bbmax) = (h.min, h.max);
        }
        let here = |out: &Vec<u8>| (out.len() as i32).into();
        if with_model {
            h.numbones = (self.bones.len() as i32).into();
            h.boneindex = here(&out);
            for (i, b) in self.bones.iter().enumerate() {
                let mut bonecontroller = [-1i32; 6];
                for (c, def) in self.controllers.iter().enumerate() {
                    let channel = controller_channel(def.type_);
                    if usize::try_from(def.bone) == Ok(i)
                        && let Some(slot) = channel.and_then(|j| bonecontroller.get_mut(j))
                    {
                        *slot = c as i32;
                    }
                }
                let bone = raw::Bone {
                    name: fixed(self.code_page, &b.name)?,
                    parent: b.parent.into(),
                    flags: 0.into(),
                    bonecontroller: bonecontroller.map(Into::into),
                    value: b.value.map(Into::into),
                    scale: b.scale.map(Into::into),
                };
                out.extend_from_slice(bone.as_bytes());
            }
            h.numbonecontrollers = (self.controllers.len() as i32).into();
            h.bonecontrollerindex = here(&out);
            for c in &self.controllers {
                let controller = raw::BoneController {
                    bone: c.bone.into(),
                    type_: (c.type_ as i32).into(),
                    start: c.start.into(),
                    end: c.end.into(),
                    rest: 0.into(),
                    index: c.index.into(),
                };
                out.extend_from_slice(controller.as_bytes());
            }
            h.hitboxindex = here(&out);
            h.numseqgroups = (1 + self.groups.len() as i32).into();
            h.seqgroupindex = here(&out);
            let labels = core::iter::once("default").chain(self.groups.iter().map(String::as_str));
            for (g, label) in labels.enumerate() {
                let file = if g == 0 {
                    String::new()
                } else {
                    format!("{}{g:02}.mdl", self.name)
                };
                let group = raw::SeqGroup {
                    label: fixed(self.code_page, label)?,
                    name: fixed(self.code_page, &file)?,
                    unused1: 0.into(),
                    unused2: 0.into(),
                };
                out.extend_from_slice(group.as_bytes());
            }
            h.numseq = (self.sequences.len() as i32).into();
            h.seqindex = here(&out);
            let seq_base = out.len();
            let anims_at = seq_base + self.sequences.len() * size_of::<raw::SeqDesc>();
            let offsets = self.anim_offsets(anims_at)?;
            for (s, &anim) in self.sequences.iter().zip(&offsets) {
                let seq = raw::SeqDesc {
                    label: fixed(self.code_page, &s.label)?,
                    fps: s.fps.into(),
                    flags: i32::from(s.looping).into(),
                    activity: 0.into(),
                    actweight: 0.into(),
                    numevents: 0.into(),
                    eventindex: 0.into(),
                    numframes: (s.frames.len() as i32).into(),
                    numpivots: 0.into(),
                    pivotindex: 0.into(),
                    motiontype: 0.into(),
                    motionbone: 0.into(),
                    linearmovement: [0.0.into(); 3],
                    automoveposindex: 0.into(),
                    automoveangleindex: 0.into(),
                    bbmin: seq_min.map(Into::into),
                    bbmax: seq_max.map(Into::into),
                    numblends: 1.into(),
                    animindex: (anim as i32).into(),
                    blendtype: [0.into(); 2],
                    blendstart: [0.0.into(); 2],
                    blendend: [0.0.into(); 2],
                    blendparent: 0.into(),
                    seqgroup: (s.group as i32).into(),
                    entrynode: 0.into(),
                    exitnode: 0.into(),
                    nodeflags: 0.into(),
                    nextseq: 0.into(),
                };
                out.extend_from_slice(seq.as_bytes());
            }
            for s in self.sequences.iter().filter(|s| s.group == 0) {
                out.extend(self.anim_bytes(s)?);
            }
            self.write_bodyparts(&mut out, &mut h)?;
            h.numattachments = (self.attachments.len() as i32).into();
            h.attachmentindex = here(&out);
            for a in &self.attachments {
                let mut name = [0u8; 32];
                let bytes = self.code_page.encode_within(&a.name, 31);
                name[..bytes.len()].copy_from_slice(&bytes);
                let record = raw::Attachment {
                    name,
                    type_: 0.into(),
                    bone: a.bone.into(),
                    org: a.org.map(Into::into),
                    vectors: [[0.0.into(); 3]; 3],
                };
                out.extend_from_slice(record.as_bytes());
            }
        }
        let refs = self.skin_families.first().map_or(0, Vec::len);
        h.numskinref = (refs as i32).into();
        h.numskinfamilies = (self.skin_families.len() as i32).into();
        if with_textures {
            h.numtextures = (self.textures.len() as i32).into();
            h.textureindex = here(&out);
            let table = out.len();
            out.resize(table + self.textures.len() * size_of::<raw::Texture>(), 0);
            h.skinindex = here(&out);
            for family in &self.skin_families {
                for &t in family {
                    out.extend_from_slice(&t.to_le_bytes());
                }
            }
            h.texturedataindex = here(&out);
            for (i, t) in self.textures.iter().enumerate() {
                let record = raw::Texture {
                    name: fixed(self.code_page, &t.name)?,
                    flags: t.flags.into(),
                    width: (t.width as i32).into(),
                    height: (t.height as i32).into(),
                    index: (out.len() as i32).into(),
                };
                let at = table + i * size_of::<raw::Texture>();
                out[at..at + size_of::<raw::Texture>()].copy_from_slice(record.as_bytes());
                out.extend_from_slice(&t.pixels);
                out.extend(t.palette.iter().flatten());
            }
        }
        h.length = (out.len() as i32).into();
        out[..size_of::<raw::StudioHdr>()].copy_from_slice(h.as_bytes());
        Ok(out)
    }

    fn write_bodyparts(&self, out: &mut Vec<u8>, h: &mut raw::StudioHdr) -> Result<()> {
        h.numbodyparts = (self.bodyparts.len() as i32).into();
        h.bodypartindex = (out.len() as i32).into();
        let parts_at = out.len();
        out.resize(
            parts_at + self.bodyparts.len() * size_of::<raw::BodyPart>(),
            0,
        );
        // As studiomdl numbers them: a part's `base` is the product of the earlier parts'
        // model counts, so that each body value shows one combination of models.
        let mut base = 1i32;
        for (p, part) in self.bodyparts.iter().enumerate() {
            let models_at = out.len();
            let record = raw::BodyPart {
                name: fixed(self.code_page, &part.name)?,
                nummodels: (part.models.len() as i32).into(),
                base: base.into(),
                modelindex: (models_at as i32).into(),
            };
            base = base.saturating_mul((part.models.len() as i32).max(1));
            let at = parts_at + p * size_of::<raw::BodyPart>();
            out[at..at + size_of::<raw::BodyPart>()].copy_from_slice(record.as_bytes());
            out.resize(models_at + part.models.len() * size_of::<raw::Model>(), 0);
            for (m, model) in part.models.iter().enumerate() {
                let mut record = raw::Model {
                    name: fixed(self.code_page, &model.name)?,
                    type_: 0.into(),
                    boundingradius: 0.0.into(),
                    nummesh: (model.meshes.len() as i32).into(),
                    meshindex: 0.into(),
                    numverts: (model.vertices.len() as i32).into(),
                    vertinfoindex: 0.into(),
                    vertindex: 0.into(),
                    numnorms: (model.normals.len() as i32).into(),
                    norminfoindex: 0.into(),
                    normindex: 0.into(),
                    numgroups: 0.into(),
                    groupindex: 0.into(),
                };
                record.vertinfoindex = (out.len() as i32).into();
                out.extend(model.vertices.iter().map(|v| v.bone));
                record.norminfoindex = (out.len() as i32).into();
                out.extend(model.normals.iter().map(|v| v.bone));
                out.resize(out.len().next_multiple_of(4), 0);
                record.vertindex = (out.len() as i32).into();
                for v in &model.vertices {
                    out.extend_from_slice(v.position.map(f32::to_le_bytes).as_flattened());
                }
                record.normindex = (out.len() as i32).into();
                for v in &model.normals {
                    out.extend_from_slice(v.position.map(f32::to_le_bytes).as_flattened());
                }
                record.meshindex = (out.len() as i32).into();
                let meshes_at = out.len();
                out.resize(meshes_at + model.meshes.len() * size_of::<raw::Mesh>(), 0);
                for (k, mesh) in model.meshes.iter().enumerate() {
                    let tris: usize = mesh
                        .commands
                        .iter()
                        .map(|c| c.vertices.len().saturating_sub(2))
                        .sum();
                    let record = raw::Mesh {
                        numtris: (tris as i32).into(),
                        triindex: (out.len() as i32).into(),
                        skinref: mesh.skinref.into(),
                        numnorms: (model.normals.len() as i32).into(),
                        normindex: 0.into(),
                    };
                    let at = meshes_at + k * size_of::<raw::Mesh>();
                    out[at..at + size_of::<raw::Mesh>()].copy_from_slice(record.as_bytes());
                    for c in &mesh.commands {
                        let n = i16::try_from(c.vertices.len())
                            .map_err(|_| too_many("tricmd", c.vertices.len(), i16::MAX as usize))?;
                        out.extend_from_slice(&(if c.fan { -n } else { n }).to_le_bytes());
                        for v in &c.vertices {
                            for x in [v.vertex, v.normal, v.s, v.t] {
                                out.extend_from_slice(&x.to_le_bytes());
                            }
                        }
                    }
                    out.extend_from_slice(&0i16.to_le_bytes());
                }
                let at = models_at + m * size_of::<raw::Model>();
                out[at..at + size_of::<raw::Model>()].copy_from_slice(record.as_bytes());
            }
        }
        Ok(())
    }
}

/// The format's name in [`FitError`]s.
const NAME: &str = "Half-Life MDL";

/// The most bones a model holds (`MAXSTUDIOBONES` of `studio.h`).
pub const MAX_BONES: usize = 128;

/// The most vertices (and normals) the GoldSrc renderer transforms per model
/// (`MAXSTUDIOVERTS` of `studio.h`). [`Builder::from_asset`] fills models up to it, each
/// the one model of a body part; only a last model past [`ENGINE_MAX_BODYPARTS`] parts holds
/// more (the format holds 32,767, a triangle command's index being a `short`), said in its
/// losses.
pub const ENGINE_MAX_VERTICES: usize = 2048;

/// The most body parts a model has (`MAXSTUDIOBODYPARTS` of `studio.h`):
/// [`Builder::from_asset`] writes a body part for each model of at most
/// [`ENGINE_MAX_VERTICES`], and what needs more parts into the last.
pub const ENGINE_MAX_BODYPARTS: usize = 32;

/// The side, in texels, of the texture [`Builder::from_asset`] writes for a material without an
/// image: texture coordinates are texels, so this keeps them to 1/256.
pub const PLACEHOLDER_SIDE: u32 = 256;

/// The largest channel value a sequence stores (an `mstudioanimvalue_t` is a `short`).
const MAX_VALUE: f32 = 32_767.0;

impl Builder {
    /// A builder for `asset` (made `+Z` up): its joints as bones, their bind rotation and
    /// translation as the bones' default values (the angles roll, pitch and yaw that
    /// [`angle_quaternion`](super::angle_quaternion) turns back into the rotation); each
    /// clip a sequence in the model file, every channel that moves scaled to use the whole
    /// `short` range; every mesh a studio mesh, the meshes filling models of at most
    /// [`ENGINE_MAX_VERTICES`] vertices and normals in order (a mesh that does not fit starts
    /// the next model, a mesh of more is split between triangles), each model the one model
    /// of its own body part, so that body 0 shows them all; each vertex on
    /// its heaviest bone, in that bone's space as the defaults place it; each triangle one
    /// three-vertex strip; a texture per material, coordinates in texels of it; the
    /// skeleton's attachment points (flagged joints and joints named `tag_…`:
    /// [`Skeleton::attachment_points`](crate::asset::Skeleton::attachment_points)) as
    /// attachments (a leaf joint without influences that sits
    /// still on its parent, unturned, as [`Model::to_asset`](crate::Model::to_asset) makes of
    /// a Half-Life attachment, as an attachment of the parent at the joint's origin and no
    /// bone: [`Asset::split_bone_tags`]); the bounds as the header's and each
    /// sequence's boxes.
    ///
    /// Textures are 8-bit with a palette each: an image of at most 256 colours (255 when some
    /// texels are transparent, which become index 255 of a `STUDIO_NF_MASKED` texture) keeps
    /// them exactly; a richer one is mapped to a fixed palette of 8 reds, 8 greens and 4
    /// blues, and a material without an image gets a [`PLACEHOLDER_SIDE`]-texel square of
    /// its colour; meshes of one material share its texture. What Half-Life cannot keep, or
    /// keeps otherwise, is said in the losses: influences past the heaviest, joint scale,
    /// colours, meshes split into body parts, vertices past what the engine draws, clips
    /// split, attachments past the first four (the SDK's client exits on a model with more:
    /// [`ENGINE_MAX_ATTACHMENTS`](super::ENGINE_MAX_ATTACHMENTS)).
    ///
    /// ```
    /// use skelmap_core::{Model, Parse, hl1, model::convert, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = convert::asset_of(&Model::from_bytes(&bytes)?)?;
    /// let fitted = hl1::Builder::from_asset(&asset)?;
    /// let written = fitted.builder.write()?;
    /// let model = hl1::Hl1::parse(&written)?;
    /// assert_eq!(model.sequences().len(), asset.clips.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for a bone, attachment or clip name over 31 bytes, a material name over 63, more
    /// than [`MAX_BONES`] bones, a bone whose parent comes after it, more than 32,767
    /// meshes, or vertices or normals in the last model (past [`ENGINE_MAX_BODYPARTS`] models
    /// of [`ENGINE_MAX_VERTICES`]), or vertex animation.
    pub fn from_asset(asset: &Asset) -> core::result::Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        // A vertex bound to no joint stays put on a joint added for it.
        let (asset, still) = asset.with_still_joint();
        asset.refuse_vertex_animation(NAME)?;
        let (asset, points) = asset.split_bone_tags(false);
        let skeleton = asset.skeleton_or_root();
        let joints = &skeleton.joints;
        asset.check_names(NAME, "bone", joints.iter().map(|j| j.name.as_str()), 31)?;
        let attached = skeleton.attachment_points();
        let attached_joints = || (attached.iter()).filter_map(|&j| Some((j, joints.get(j)?)));
        let attachment_names = (attached_joints().map(|(_, j)| j.name.as_str()))
            .chain(points.iter().map(|t| t.name.as_str()));
        asset.check_names(NAME, "attachment", attachment_names, 31)?;
        asset.check_names(
            NAME,
            "clip",
            asset.clips.iter().map(|c| c.name.as_str()),
            31,
        )?;
        let shaders = asset.shader_names(NAME, 63)?;
        fits(
            joints.len(),
            MAX_BONES,
            "bones",
            "merge or remove bones in the source model",
        )?;
        let shorts = i16::MAX as usize;
        let advice = "split the model into several";
        fits(asset.meshes.len(), shorts, "meshes", advice)?;
        if let Some((j, joint)) = (joints.iter().enumerate()).find(|(j, b)| b.parent >= Some(*j)) {
            return Err(FitError::new(
                NAME,
                format!("bone '{}' (bone {j}) after its parent", joint.name),
                "a bone's parent comes before it",
                "reorder the source model's bones, parents first",
            ));
        }
        let defaults: Vec<[f32; 6]> = skeleton.bind_keys().iter().map(channels).collect();
        // Each bone's world transform as a reader builds it from the defaults, so that the
        // vertices placed in their bone's space come back where they were.
        let mut world: Vec<Affine3A> = Vec::with_capacity(joints.len());
        for (joint, d) in joints.iter().zip(&defaults) {
            let rotation = super::angle_quaternion([d[3], d[4], d[5]]);
            let local = Affine3A::from_rotation_translation(rotation, Vec3::new(d[0], d[1], d[2]));
            let parent = joint.parent.and_then(|p| world.get(p).copied());
            world.push(parent.map_or(local, |p| p * local));
        }
        let mut b = Builder {
            name: "model".into(),
            bones: Vec::new(),
            groups: Vec::new(),
            sequences: Vec::new(),
            bodyparts: Vec::new(),
            textures: Vec::new(),
            skin_families: Vec::new(),
            attachments: (attached_joints().map(|(j, joint)| AttachmentDef {
                name: joint.name.clone(),
                bone: j as i32,
                org: [0.0; 3],
            }))
            .chain(points.iter().map(|t| AttachmentDef {
                name: t.name.clone(),
                bone: t.bone as i32,
                org: t.offset.translation.to_array(),
            }))
            .collect(),
            controllers: Vec::new(),
            textures_apart: false,
            bounds: asset.bounds(),
            code_page: asset.code_page,
        };
        let frames = asset.joint_frames().unwrap_or_default();
        let scales = channel_scales(&frames, &defaults);
        b.bones = (joints.iter().zip(&defaults).zip(&scales))
            .map(|((j, d), scale)| BoneDef {
                name: j.name.clone(),
                parent: j.parent.map_or(-1, |p| p as i32),
                value: *d,
                scale: *scale,
            })
            .collect();
        let values: Vec<Vec<[i16; 6]>> = (frames.iter())
            .map(|keys| {
                (keys.iter().zip(&defaults).zip(&scales))
                    .map(|((k, d), scale)| quantised(&channels(k), d, scale))
                    .collect()
            })
            .collect();
        let (mut first, mut split) = (0usize, Vec::new());
        for clip in asset.clips.iter().filter(|c| !c.is_empty()) {
            let Some(frames) = values.get(first..first + clip.len()) else {
                break;
            };
            first += clip.len();
            let whole = SequenceDef {
                label: clip.name.clone(),
                fps: clip.fps,
                looping: clip.looped,
                group: 0,
                frames: frames.to_vec(),
            };
            if b.anim_bytes(&whole).is_ok() {
                b.sequences.push(whole);
                continue;
            }
            // A channel's runs start at most 65,535 bytes past its bone's record: a clip
            // whose values reach further plays as consecutive sequences, each within reach.
            // The fewest parts that fit, by bisection (shorter parts only fit better).
            let chunks = |parts: usize| frames.chunks(frames.len().div_ceil(parts));
            let fit = |parts: usize| {
                chunks(parts).all(|f| {
                    let part = SequenceDef {
                        frames: f.to_vec(),
                        ..whole.clone()
                    };
                    b.anim_bytes(&part).is_ok()
                })
            };
            let (mut low, mut high) = (2, frames.len());
            while low < high {
                let mid = low + (high - low) / 2;
                if fit(mid) {
                    high = mid;
                } else {
                    low = mid + 1;
                }
            }
            if !fit(low) {
                return Err(FitError::new(
                    NAME,
                    format!("a frame of clip '{}' on {} bones", clip.name, joints.len()),
                    "a frame's animation values within 65,535 bytes of its bone records",
                    "remove bones from the source model",
                ));
            }
            let parts = chunks(low);
            let count = parts.len();
            for (i, f) in parts.enumerate() {
                // The name cut to whole characters that leave room for the number in the
                // 31 bytes the label field stores, counted in the names' code page.
                let suffix = format!("_{}", i + 1);
                let head = asset.name_bytes_within(&clip.name, 31 - suffix.len());
                b.sequences.push(SequenceDef {
                    label: format!("{}{suffix}", asset.code_page.decode(&head)),
                    looping: false,
                    frames: f.to_vec(),
                    ..whole.clone()
                });
            }
            split.push(format!(
                "clip '{}' ({} frames) plays as {count} sequences, '{}' to '{}': a sequence's \
                 animation values lie within 65,535 bytes of its bone records",
                clip.name,
                frames.len(),
                b.sequences[b.sequences.len() - count].label,
                b.sequences[b.sequences.len() - 1].label,
            ));
        }
        if b.sequences.is_empty() {
            b.sequences.push(SequenceDef {
                label: "idle".into(),
                fps: crate::view::NAMED_CLIP_FPS,
                looping: true,
                group: 0,
                frames: vec![vec![[0; 6]; joints.len()]],
            });
        }
        let mut lost = Lost::default();
        // Models of at most ENGINE_MAX_VERTICES stored vertices and normals, each the one
        // model of its own body part, so that body 0 draws them all.
        let mut packed = vec![Packed::new(1)];
        // A texture per material, which every mesh of that material shows (found with a
        // look-up a mesh: an asset may hold thousands of materials).
        let mut skins: HashMap<Option<usize>, usize> = HashMap::new();
        for (mesh, shader) in asset.meshes.iter().zip(shaders) {
            let skinref = match skins.get(&mesh.material) {
                Some(&skinref) => skinref,
                None => {
                    let skinref = skins.len();
                    skins.insert(mesh.material, skinref);
                    b.textures.push(texture_of(&asset, mesh, shader, &mut lost));
                    skinref
                }
            };
            let texture = &b.textures[skinref];
            let normals = if mesh.normals.len() == mesh.positions.len() {
                mesh.normals.clone()
            } else {
                lost.normals += 1;
                smooth_normals(&mesh.positions, &mesh.triangles)
            };
            // Each vertex and its normal, rigid on the heaviest bone, in its space.
            let rigid: Vec<(VertexDef, VertexDef)> = (mesh.positions.iter().zip(&normals))
                .enumerate()
                .map(|(v, (p, n))| {
                    let influences = mesh.influences.of(v);
                    lost.influences += usize::from(influences.len() > 1);
                    let bone = (influences.iter())
                        .max_by(|a, b| a.1.total_cmp(&b.1))
                        .map_or(0, |&(j, _)| usize::from(j))
                        .min(joints.len() - 1);
                    let to_bone = world[bone].inverse();
                    let normal = to_bone.transform_vector3(Vec3::from_array(*n));
                    let vertex = VertexDef {
                        bone: bone as u8,
                        position: to_bone.transform_point3(Vec3::from_array(*p)).to_array(),
                    };
                    let normal = VertexDef {
                        bone: bone as u8,
                        position: normal.normalize_or_zero().to_array(),
                    };
                    (vertex, normal)
                })
                .collect();
            // The whole mesh in the current model when it fits, else in a new one, else
            // triangle by triangle, a new model whenever the next triangle does not fit.
            let whole = |part: &Packed| part.fits(rigid.iter().copied());
            let mut current = packed.len() - 1;
            let fits_whole = whole(&packed[current]);
            let room = packed.len() < ENGINE_MAX_BODYPARTS;
            if !fits_whole && !packed[current].is_empty() && room && whole(&Packed::new(0)) {
                packed.push(Packed::new(packed.len() + 1));
                current += 1;
            }
            let mut slots: Vec<Option<(usize, usize)>> = vec![None; rigid.len()];
            if fits_whole || packed[current].is_empty() && whole(&packed[current]) {
                for (slot, &corner) in slots.iter_mut().zip(&rigid) {
                    *slot = Some(packed[current].store(corner));
                }
            }
            let uvs = mesh.uvs_or_zero();
            let size = [texture.width, texture.height].map(|s| s as f32);
            let mut commands = Vec::with_capacity(mesh.triangles.len());
            for t in &mesh.triangles {
                if t.iter().any(|&i| i as usize >= rigid.len()) {
                    continue;
                }
                let corners = t.map(|i| rigid[i as usize]);
                let unstored = t.iter().any(|&i| slots[i as usize].is_none());
                if unstored
                    && !packed[current].fits(corners)
                    && !packed[current].is_empty()
                    && packed.len() < ENGINE_MAX_BODYPARTS
                {
                    if !commands.is_empty() {
                        packed[current].finish_mesh(skinref, &mut commands);
                    }
                    packed.push(Packed::new(packed.len() + 1));
                    current += 1;
                    slots.fill(None);
                }
                // A strip's first triangle is reported reversed: written reversed, each
                // triangle reads back as the asset winds it.
                let vertices = [t[2], t[1], t[0]].map(|i| {
                    let uv = uvs.get(i as usize).copied().unwrap_or_default();
                    let [s, t] = [0, 1].map(|c| {
                        let texel = (uv[c] * size[c]).round();
                        lost.clamped += usize::from(!(-32_768.0..=32_767.0).contains(&texel));
                        texel.clamp(-32_768.0, 32_767.0) as i16
                    });
                    let slot = &mut slots[i as usize];
                    let (vertex, normal) =
                        *slot.get_or_insert_with(|| packed[current].store(rigid[i as usize]));
                    // Held to `i16` once the models are filled.
                    TrivertDef {
                        vertex: vertex as i16,
                        normal: normal as i16,
                        s,
                        t,
                    }
                });
                commands.push(CommandDef {
                    fan: false,
                    vertices: vertices.to_vec(),
                });
            }
            packed[current].finish_mesh(skinref, &mut commands);
        }
        b.skin_families = vec![(0..b.textures.len() as i16).collect()];
        let stored = (packed.iter().map(|p| p.model.vertices.len()).max()).unwrap_or(0);
        let most = packed.iter().map(|p| p.model.normals.len()).max();
        fits(
            stored.max(most.unwrap_or(0)),
            shorts,
            "vertices in a model",
            advice,
        )?;
        let parts = packed.len();
        b.bodyparts = packed.into_iter().map(Packed::into_part).collect();
        if parts > 1 {
            split.push(format!(
                "the meshes are written as {parts} body parts of one model each, each within \
                 the {ENGINE_MAX_VERTICES} vertices the GoldSrc renderer draws of a model \
                 (MAXSTUDIOVERTS); body 0 shows them all"
            ));
        }
        let scaled_joints = skeleton.scaled_joints();
        let mut losses = lost.sentences(stored, scaled_joints, asset.scaled_frames());
        losses.extend(still);
        losses.extend(split);
        let max = super::ENGINE_MAX_ATTACHMENTS as usize;
        if b.attachments.len() > max {
            let left: Vec<String> = (b.attachments.drain(max..))
                .map(|a| format!("'{}'", a.name))
                .collect();
            losses.push(format!(
                "{} attachments past the {max} the Half-Life SDK's client places (it exits on \
                 a model with more) left out: {}",
                left.len(),
                left.join(", ")
            ));
        }
        Ok(Fitted { builder: b, losses })
    }
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Hl1;
    const STORES_IMAGES: bool = true;

    /// The model [`Builder::from_asset`] makes, written, and validated as a reader would
    /// validate it: values the format cannot hold that no limit names (a position so far
    /// out that its bone's space overflows) are refused with the rule they break, rather
    /// than written.
    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> core::result::Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        let bytes = builder.write()?;
        <super::Hl1<'_> as crate::Parse<'_>>::parse(&bytes)?;
        Ok(crate::asset::Written::one(Self::FORMAT, bytes).with_notes(losses))
    }
}

/// [`FitError`] when `count` `what` are more than `max`.
fn fits(count: usize, max: usize, what: &str, advice: &str) -> core::result::Result<(), FitError> {
    if count <= max {
        return Ok(());
    }
    Err(FitError::new(
        NAME,
        format!("{count} {what}"),
        format!("at most {max} {what}"),
        advice,
    ))
}

/// A model [`Builder::from_asset`] fills, and the body part it is the one model of: each
/// vertex and normal stored once per bone and value, as studiomdl stores them (a mesh read
/// from triangle commands repeats them at every corner).
struct Packed {
    /// Its body part's number: 1 is `body`, `n` is `body<n>`.
    number: usize,
    model: ModelDef,
    vertices: HashMap<(u8, [u32; 3]), usize>,
    normals: HashMap<(u8, [u32; 3]), usize>,
}

impl Packed {
    fn new(number: usize) -> Self {
        Packed {
            number,
            model: ModelDef {
                name: "body".into(),
                vertices: Vec::new(),
                normals: Vec::new(),
                meshes: Vec::new(),
            },
            vertices: HashMap::new(),
            normals: HashMap::new(),
        }
    }

    fn key(v: &VertexDef) -> (u8, [u32; 3]) {
        (v.bone, v.position.map(f32::to_bits))
    }

    fn is_empty(&self) -> bool {
        self.model.vertices.is_empty() && self.model.normals.is_empty()
    }

    /// Whether the model holds `corners` (vertices and their normals) as well as what it
    /// holds, within [`ENGINE_MAX_VERTICES`] vertices and as many normals.
    fn fits(&self, corners: impl IntoIterator<Item = (VertexDef, VertexDef)>) -> bool {
        let mut vertices = std::collections::HashSet::new();
        let mut normals = std::collections::HashSet::new();
        for (vertex, normal) in corners {
            let (v, n) = (Self::key(&vertex), Self::key(&normal));
            if !self.vertices.contains_key(&v) {
                vertices.insert(v);
            }
            if !self.normals.contains_key(&n) {
                normals.insert(n);
            }
        }
        self.model.vertices.len() + vertices.len() <= ENGINE_MAX_VERTICES
            && self.model.normals.len() + normals.len() <= ENGINE_MAX_VERTICES
    }

    /// The indices of `corner`'s vertex and normal, stored when they are not yet.
    fn store(&mut self, (vertex, normal): (VertexDef, VertexDef)) -> (usize, usize) {
        let once = |list: &mut Vec<VertexDef>, index: &mut HashMap<_, usize>, value| {
            *index.entry(Self::key(&value)).or_insert_with(|| {
                list.push(value);
                list.len() - 1
            })
        };
        (
            once(&mut self.model.vertices, &mut self.vertices, vertex),
            once(&mut self.model.normals, &mut self.normals, normal),
        )
    }

    /// Ends a studio mesh of `commands` (taken) showing texture `skinref`.
    fn finish_mesh(&mut self, skinref: usize, commands: &mut Vec<CommandDef>) {
        self.model.meshes.push(MeshDef {
            skinref: skinref as i32,
            commands: std::mem::take(commands),
        });
    }

    fn into_part(self) -> BodyPartDef {
        let name = match self.number {
            1 => "body".to_owned(),
            n => format!("body{n}"),
        };
        let model = ModelDef {
            name: name.clone(),
            ..self.model
        };
        BodyPartDef {
            name,
            models: vec![model],
        }
    }
}

/// What [`Builder::from_asset`] could not keep, counted as it goes.
#[derive(Debug, Default)]
struct Lost {
    /// Vertices with more than one influence.
    influences: usize,
    /// Meshes without normals (computed from their triangles).
    normals: usize,
    /// Texture coordinates past a `short` of texels.
    clamped: usize,
    /// Images of more colours than a palette holds.
    quantised: usize,
    /// Materials without an image.
    placeholders: usize,
}

impl Lost {
    /// The losses in words.
    fn sentences(
        &self,
        vertices: usize,
        scaled_joints: usize,
        scaled_frames: usize,
    ) -> Vec<String> {
        let mut out = Vec::new();
        if self.influences > 0 {
            out.push(format!(
                "{} vertices had more than one influence; Half-Life binds a vertex to one bone, \
                 so each keeps only its heaviest",
                self.influences
            ));
        }
        if scaled_joints + scaled_frames > 0 {
            out.push(format!(
                "{scaled_joints} joints scale in the bind pose and {scaled_frames} frames scale \
                 a joint; Half-Life bones do not scale, so the scale is left out"
            ));
        }
        if vertices > ENGINE_MAX_VERTICES {
            out.push(format!(
                "{vertices} vertices in one model; the GoldSrc renderer draws at most \
                 {ENGINE_MAX_VERTICES} (MAXSTUDIOVERTS)"
            ));
        }
        if self.normals > 0 {
            out.push(format!(
                "{} meshes had no normals; they are computed from the triangles",
                self.normals
            ));
        }
        if self.quantised > 0 {
            out.push(format!(
                "{} images have more colours than a 256-colour palette; their colours are \
                 mapped to 8 reds, 8 greens and 4 blues",
                self.quantised
            ));
        }
        if self.placeholders > 0 {
            out.push(format!(
                "{} materials have no image; a {PLACEHOLDER_SIDE}×{PLACEHOLDER_SIDE} texture of \
                 each material's colour stands in",
                self.placeholders
            ));
        }
        if self.clamped > 0 {
            out.push(format!(
                "{} texture coordinates lie past 32,767 texels and are clamped there",
                self.clamped
            ));
        }
        out
    }
}

/// A joint key's six channels: position X, Y, Z, then the angles roll, pitch and yaw that
/// `AngleQuaternion` makes its rotation from (`q = qz · qy · qx`).
fn channels(key: &JointKey) -> [f32; 6] {
    let [roll, pitch, yaw] = crate::pose::euler::zyx_of(key.rotation);
    let t = key.translation;
    [t.x, t.y, t.z, roll, pitch, yaw]
}

/// `value − default` per channel, each angle's the turn of at most half a circle that goes
/// there.
fn deltas(value: &[f32; 6], default: &[f32; 6]) -> [f32; 6] {
    core::array::from_fn(|j| {
        let d = value[j] - default[j];
        if j < 3 {
            d
        } else {
            (d + core::f32::consts::PI).rem_euclid(core::f32::consts::TAU) - core::f32::consts::PI
        }
    })
}

/// Per bone, the scale of each channel: its largest move from the default over `frames`
/// spread over the whole `short` range (0 for a channel that never moves).
fn channel_scales(frames: &[&[JointKey]], defaults: &[[f32; 6]]) -> Vec<[f32; 6]> {
    let mut largest = vec![[0.0f32; 6]; defaults.len()];
    for keys in frames {
        for ((k, d), out) in keys.iter().zip(defaults).zip(&mut largest) {
            let deltas = deltas(&channels(k), d);
            for (o, delta) in out.iter_mut().zip(deltas) {
                *o = o.max(delta.abs());
            }
        }
    }
    largest
        .into_iter()
        .map(|l| l.map(|m| m / MAX_VALUE))
        .collect()
}

/// The stored values of one bone's channels: the moves from the defaults in units of the
/// scales.
fn quantised(value: &[f32; 6], default: &[f32; 6], scale: &[f32; 6]) -> [i16; 6] {
    let deltas = deltas(value, default);
    core::array::from_fn(|j| {
        if scale[j] > 0.0 {
            (deltas[j] / scale[j]).round().clamp(-MAX_VALUE, MAX_VALUE) as i16
        } else {
            0
        }
    })
}

/// Mesh `mesh`'s texture, named `name`: its material's image in a palette of its own, or a
/// placeholder of the material's colour; counted in `lost` where it is not exact.
fn texture_of(asset: &Asset, mesh: &Mesh, name: String, lost: &mut Lost) -> TextureDef {
    let material = mesh.material.and_then(|m| asset.materials.get(m));
    let image = (material.and_then(|m| m.image))
        .and_then(|i| asset.images.get(i))
        .filter(|i| i.width > 0 && i.height > 0);
    let Some(image) = image else {
        lost.placeholders += 1;
        let colour = material.map_or([1.0; 4], |m| m.base_color);
        let mut palette = [[0u8; 3]; 256];
        palette[0] = core::array::from_fn(|c| (colour[c].clamp(0.0, 1.0) * 255.0).round() as u8);
        return TextureDef {
            name,
            flags: 0,
            width: PLACEHOLDER_SIDE,
            height: PLACEHOLDER_SIDE,
            pixels: vec![0; (PLACEHOLDER_SIDE * PLACEHOLDER_SIDE) as usize],
            palette,
        };
    };
    let texels = || image.rgba.chunks_exact(4);
    let masked = texels().any(|p| p[3] < 128);
    let capacity = if masked { 255 } else { 256 };
    let mut palette = [[0u8; 3]; 256];
    let mut index: std::collections::HashMap<[u8; 3], u8> = std::collections::HashMap::new();
    for p in texels().filter(|p| p[3] >= 128 || !masked) {
        let rgb = [p[0], p[1], p[2]];
        if !index.contains_key(&rgb) {
            if index.len() == capacity {
                index.clear();
                break;
            }
            palette[index.len()] = rgb;
            index.insert(rgb, index.len() as u8);
        }
    }
    let exact = !index.is_empty() || texels().all(|p| masked && p[3] < 128);
    if !exact {
        lost.quantised += 1;
        palette = core::array::from_fn(|i| {
            let level = |value: usize, levels: usize| (value * 255 / (levels - 1)) as u8;
            [
                level((i >> 5) & 7, 8),
                level((i >> 2) & 7, 8),
                level(i & 3, 4),
            ]
        });
    }
    if masked {
        // The engine's transparent index; blue, as studiomdl's tools show it.
        palette[255] = [0, 0, 255];
    }
    let pixels = texels()
        .map(|p| {
            let rgb = [p[0], p[1], p[2]];
            if masked && p[3] < 128 {
                255
            } else if exact {
                index.get(&rgb).copied().unwrap_or(0)
            } else {
                let i = (p[0] & 0xe0) | ((p[1] >> 3) & 0x1c) | (p[2] >> 6);
                if masked && i == 255 { 254 } else { i }
            }
        })
        .collect();
    TextureDef {
        name,
        flags: if masked {
            raw::STUDIO_NF_MASKED as i32
        } else {
            0
        },
        width: image.width,
        height: image.height,
        pixels,
        palette,
    }
}

/// Each vertex's normal from the triangles around it, weighted by their areas (zero for a
/// vertex on none).
fn smooth_normals(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<[f32; 3]> {
    let mut sums = vec![Vec3::ZERO; positions.len()];
    let at = |i: u32| {
        positions
            .get(i as usize)
            .map_or(Vec3::ZERO, |p| Vec3::from_array(*p))
    };
    for t in triangles {
        let [a, b, c] = t.map(at);
        let n = (b - a).cross(c - a);
        for &i in t {
            if let Some(sum) = sums.get_mut(i as usize) {
                *sum += n;
            }
        }
    }
    sums.into_iter()
        .map(|n| n.normalize_or_zero().to_array())
        .collect()
}

/// Appends `channel`'s runs: each as many differing values as follow one another (at most
/// 255), then as many repeats of the last as follow (`total` at most 255).
pub(crate) fn encode_runs(channel: &[i16], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < channel.len() {
        let start = i;
        let mut valid = 1usize;
        i += 1;
        while i < channel.len() && valid < 255 && channel[i] != channel[i - 1] {
            valid += 1;
            i += 1;
        }
        let mut total = valid;
        while i < channel.len() && total < 255 && channel[i] == channel[i - 1] {
            total += 1;
            i += 1;
        }
        out.extend_from_slice(&[valid as u8, total as u8]);
        for v in &channel[start..start + valid] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

fn too_many(what: &'static str, value: usize, max: usize) -> Error {
    Error::Write {
        format: Format::Hl1,
        what,
        value: value as u64,
        max: max as u64,
    }
}

/// A NUL-padded name field, the name in `code_page`.
fn fixed<const N: usize>(code_page: CodePage, name: &str) -> Result<[u8; N]> {
    let mut out = [0u8; N];
    let name = code_page.encode(name);
    if name.len() >= N {
        return Err(too_many("name", name.len(), N - 1));
    }
    out[..name.len()].copy_from_slice(&name);
    Ok(out)
}
