//! What `info` reports about a model, as one serialisable structure shared by the text and
//! JSON renderings (so the two always carry the same numbers). Built from the model's
//! format-neutral API.
//!
//! The JSON carries numbers, not prose, and its shape is a contract:
//! `crates/skelmap-cli/schema/info.schema.json` (JSON Schema 2020-12) describes every field, and
//! `tests/info_schema.rs` holds every corpus model's output to it. A field added, renamed or
//! retyped here changes the schema in the same commit.

use std::fmt::Write;

use serde::Serialize;
use skelmap_core::gamestudio::{PixelFormat, Skin};
use skelmap_core::model::{AttachmentKind, ClipOrigin, Companion, Mesh, Pose, View};
use skelmap_core::name::CodePage;
use skelmap_core::pose::bounds::Aabb;
use skelmap_core::pose::framegroups::FrameGroup;
use skelmap_core::{Bone, Model, Warning, gpu, name};

/// Everything `info` prints.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub file: String,
    pub format: &'static str,
    pub size: u64,
    /// The skeleton file an SKM or an MDM was paired with.
    pub skeleton: Option<String>,
    /// The animation an SL mesh was paired with, or the one given with `--animation`.
    pub animation: Option<String>,
    /// The `.skin` file an MD3 or an MDM was opened with.
    pub skin_file: Option<String>,
    /// The `animation.cfg` a player's legs or torso (MD3) took its clips from.
    pub animation_config: Option<String>,
    /// Every file the model was opened with besides its own, in the order read.
    pub companions: Vec<CompanionSummary>,
    pub levels_of_detail: u32,
    pub bones: u32,
    pub roots: u32,
    /// Attachment points: flagged bones (DPM, SKM, SKP, MDX), every joint (IQM, MS3D, MD5,
    /// PSK, ZYM), tags (MD3, MDC, MDR, MDM, Half-Life).
    pub attachments: u32,
    pub meshes: u32,
    pub frames: u32,
    pub vertices: u64,
    pub triangles: u64,
    pub influences: u64,
    pub max_influences_per_vertex: u32,
    /// MS3D: groups (its meshes' submeshes) and joints under their own names (`null` for
    /// other formats).
    pub groups: Option<u32>,
    pub joints: Option<u32>,
    /// Materials ([`Model::num_materials`]: a mesh's or surface's shader, an IQM mesh's or a
    /// PSK's material, MS3D materials, embedded skins …).
    pub materials: u32,
    pub material_list: Vec<MaterialSummary>,
    /// The code page the names are in (`UTF-8` or `GBK`: [`CodePage::of`] the model's
    /// names); every name here is decoded with it.
    pub code_page: &'static str,
    /// The skins a model embeds (GameStudio MDL, HMP and MDL7, Quake, Half-Life), one object
    /// each (an empty list for a GameStudio or Quake model without any; `null` for formats
    /// without skins).
    pub skins: Option<Vec<SkinSummary>>,
    /// HMP: vertices per row and rows (`null` for other formats).
    pub grid: Option<[u32; 2]>,
    /// SL mdl: the declared vertex attributes, in order (`null` for other formats).
    pub attributes: Option<Vec<String>>,
    /// Half-Life: the body value shown and each body part's models (`null` for other
    /// formats).
    pub body: Option<BodySummary>,
    /// A DPM's stored bounds and radii (`null` for other formats).
    pub bounds: Option<BoundsSummary>,
    /// The box around the vertices in the bind pose (`Model::bind_pose`), computed.
    pub posed_bounds: Option<PosedBounds>,
    /// What GPU skinning buffers cost against the model's own skinning, over every frame
    /// (`null` without bones or vertices): fractions of the bind-pose diagonal.
    pub gpu_error: Option<GpuError>,
    /// What GPU vertex-animation buffers (the file's packed frames, [`Model::gpu_morph`])
    /// cost against the model's own tween (`null` for a model that is not vertex-animated).
    pub gpu_morph_error: Option<GpuMorph>,
    /// Named animations, and where they came from (`frame names`, `framegroups file`,
    /// `timeline` or `none`).
    pub frame_groups: Vec<GroupSummary>,
    pub groups_from: &'static str,
    pub bone_list: Vec<BoneSummary>,
    /// Every attachment point, with where the bind pose puts it.
    pub attachment_list: Vec<AttachmentSummary>,
    pub mesh_list: Vec<MeshSummary>,
    pub frame_names: Vec<String>,
    pub diagnostics: Vec<DiagnosticSummary>,
}

/// A file a model was opened with: what it is to the model ([`Companion::name`]), its path
/// (relative to the model's base directory where it has one), and whether the model left it
/// out ([`Model::left_out`]; a warning says why).
#[derive(Debug, Serialize)]
pub struct CompanionSummary {
    pub kind: &'static str,
    pub path: String,
    pub left_out: bool,
}

/// A Half-Life model's body value and its body parts.
#[derive(Debug, Serialize)]
pub struct BodySummary {
    /// The body value the mesh shows (`--body`).
    pub value: u32,
    pub parts: Vec<BodyPartSummary>,
}

/// One body part: its name, `base`, models (by name) and the one the body value shows.
#[derive(Debug, Serialize)]
pub struct BodyPartSummary {
    pub name: String,
    pub base: i32,
    pub models: Vec<String>,
    pub shown: usize,
}

impl BodySummary {
    /// The body parts of a Half-Life model, the model each shows as opened.
    fn of(model: &skelmap_core::hl1::Hl1<'_>, page: CodePage) -> BodySummary {
        let parts = model
            .bodyparts()
            .iter()
            .enumerate()
            .map(|(p, part)| BodyPartSummary {
                name: text(page, name::trim_nul(&part.name)),
                base: part.base.get(),
                models: (0..part.nummodels.get().max(0) as usize)
                    .filter_map(|m| {
                        model
                            .model(p, m)
                            .map(|m| text(page, name::trim_nul(&m.name)))
                    })
                    .collect(),
                shown: model.body_model(p, model.body()).unwrap_or(0),
            })
            .collect();
        BodySummary {
            value: model.body(),
            parts,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct BoundsSummary {
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
    pub yaw_radius: f32,
    pub all_radius: f32,
}

/// Per choice of influences and weight precision, [`Model::gpu_error`], over every frame
/// or, on a model whose vertices × frames pass [`GPU_ERROR_BUDGET`], over frames spread
/// evenly through it.
#[derive(Debug, Serialize)]
pub struct GpuError {
    /// Frames measured.
    pub frames: usize,
    /// The model's frames (1 for the bind pose of a model without frames).
    pub of_frames: usize,
    pub top4_unorm8: GpuChoice,
    pub top4_unorm16: GpuChoice,
    pub top8_unorm8: GpuChoice,
    pub top8_unorm16: GpuChoice,
}

/// Largest and RMS vertex distance, fractions of the bind-pose diagonal.
#[derive(Debug, Serialize)]
pub struct GpuChoice {
    pub max: f32,
    pub rms: f32,
}

impl GpuError {
    /// The four choices measured over every frame of `model`; `None` without bones or
    /// vertices, or where frames also replace vertices (GPU buffers refuse those).
    fn of(model: &Model<'_>) -> Result<Option<GpuError>, gpu::Error> {
        if model.num_bones() == 0
            || model.is_vertex_animated()
            || model.num_vertices() == 0
            || model.frames_replace_vertices()
        {
            return Ok(None);
        }
        let choice = |influences, precision| gpu::Options {
            influences,
            precision,
            ..gpu::Options::default()
        };
        let (four, eight) = (gpu::Influences::Four, gpu::Influences::Eight);
        let (u8, u16) = (gpu::Precision::Unorm8, gpu::Precision::Unorm16);
        let of_frames = model.num_frames().max(1);
        let over = measured_frames(of_frames, model.num_vertices());
        let e = model.gpu_errors_over(
            &[
                choice(four, u8),
                choice(four, u16),
                choice(eight, u8),
                choice(eight, u16),
            ],
            &over,
        )?;
        let c = |i: usize| {
            e.get(i)
                .map_or(GpuChoice { max: 0.0, rms: 0.0 }, |e| GpuChoice {
                    max: e.max,
                    rms: e.rms,
                })
        };
        Ok(Some(GpuError {
            frames: over.len(),
            of_frames,
            top4_unorm8: c(0),
            top4_unorm16: c(1),
            top8_unorm8: c(2),
            top8_unorm16: c(3),
        }))
    }

    /// One line: each choice's largest and RMS error, and the frames measured where they are
    /// not all of them.
    fn line(&self) -> String {
        let c = |c: &GpuChoice| format!("{:.2e}/{:.2e}", c.max, c.rms);
        let over = if self.frames < self.of_frames {
            format!(" over {} of {} frames", self.frames, self.of_frames)
        } else {
            String::new()
        };
        format!(
            "GPU skinning error{over}, max/RMS of the bind-pose diagonal: top-4 unorm8 {}, \
             unorm16 {}; top-8 unorm8 {}, unorm16 {}",
            c(&self.top4_unorm8),
            c(&self.top4_unorm16),
            c(&self.top8_unorm8),
            c(&self.top8_unorm16)
        )
    }
}

/// Vertices × frames that `info` deforms to measure the GPU buffers' error: every frame of a
/// model within it (every corpus model: the spider's 7,427 vertices × 1,139 frames are the
/// most, 8.5 M), an even spread of frames beyond it (a Sven Co-op player of 71,346 vertices
/// and 5,031 frames is 359 M: about a minute of deforms).
pub const GPU_ERROR_BUDGET: usize = 16_000_000;

/// The frames [`GpuError::of`] measures of a model of `frames` frames (at least 1) and
/// `vertices` vertices: all of them within [`GPU_ERROR_BUDGET`], else as many as it allows
/// (at least 2), spread evenly from frame 0 to the last.
pub fn measured_frames(frames: usize, vertices: usize) -> Vec<usize> {
    let most = (GPU_ERROR_BUDGET / vertices.max(1)).max(2);
    if frames <= most {
        return (0..frames).collect();
    }
    // `i · (frames − 1) / (most − 1)` for i in 0..most: 0 and the last frame included,
    // strictly increasing since frames − 1 ≥ most − 1.
    let (last, steps) = ((frames - 1) as u64, (most - 1) as u64);
    (0..most as u64)
        .map(|i| usize::try_from(i * last / steps).unwrap_or(frames - 1))
        .collect()
}

/// [`Model::gpu_morph`]'s buffers and [`Model::gpu_morph_error`].
#[derive(Debug, Serialize)]
pub struct GpuMorph {
    /// How the records are packed: `bytes`, `words` or `lat_long`.
    pub packing: &'static str,
    /// Bytes of every frame's records.
    pub record_bytes: u64,
    /// Largest and RMS vertex distance over every frame and halfway between frames,
    /// fractions of frame 0's diagonal.
    pub max: f32,
    pub rms: f32,
}

impl GpuMorph {
    /// The buffers' measure; `None` for a model without packed vertex frames.
    fn of(model: &Model<'_>) -> Result<Option<GpuMorph>, gpu::Error> {
        if !model.is_vertex_animated() || model.num_vertices() == 0 {
            return Ok(None);
        }
        let morph = match model.gpu_morph() {
            Ok(morph) => morph,
            Err(gpu::Error::NotVertexAnimated) => return Ok(None),
            Err(e) => return Err(e),
        };
        let error = model.gpu_morph_error()?;
        Ok(Some(GpuMorph {
            packing: match morph.packing {
                gpu::Packing::Bytes => "bytes",
                gpu::Packing::Words => "words",
                gpu::Packing::LatLong => "lat_long",
            },
            record_bytes: morph.records.len() as u64,
            max: error.max,
            rms: error.rms,
        }))
    }

    /// One line: the records and the error.
    fn line(&self) -> String {
        format!(
            "GPU vertex animation: {} bytes of {} records, tween error max/RMS of the size \
             {:.2e}/{:.2e}",
            self.record_bytes, self.packing, self.max, self.rms
        )
    }
}

#[derive(Debug, Serialize)]
pub struct PosedBounds {
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
}

#[derive(Debug, Serialize)]
pub struct GroupSummary {
    pub name: String,
    pub first: u32,
    pub count: u32,
    pub fps: f32,
    pub looped: bool,
}

#[derive(Debug, Serialize)]
pub struct BoneSummary {
    pub name: String,
    pub parent: Option<usize>,
    pub flags: u32,
    pub attachment: bool,
}

/// One attachment point, and where the bind pose (frame 0 but for MS3D's rest pose) puts it.
#[derive(Debug, Serialize)]
pub struct AttachmentSummary {
    pub name: String,
    /// `bone` or `tag`.
    pub kind: &'static str,
    /// The bone's or the tag's index.
    pub index: usize,
    /// Its origin in model space in the bind pose (`null` where the model cannot be posed).
    pub origin: Option<[f32; 3]>,
    /// Its forward, left and up axes (the transform's columns) in the bind pose (`null`
    /// likewise).
    pub axes: Option<[[f32; 3]; 3]>,
}

/// One skin (GameStudio's, or Quake's), as numbers: what `schema/info.schema.json` calls a skin.
#[derive(Debug, Serialize)]
pub struct SkinSummary {
    /// The pixel format itself, for the text rendering (JSON has its name).
    #[serde(skip)]
    pub pixel: PixelFormat,
    /// The raw type code (HMP7: the kind in bits 0..=2 and the flags above).
    #[serde(rename = "type")]
    pub type_code: i32,
    /// [`PixelFormat::name`]: `palette8`, `rgb565`, …, `dds`, `reference` or `external`.
    pub format: &'static str,
    /// Texels (0 for DDS, references, external names and material-only skins).
    pub width: u32,
    pub height: u32,
    /// Texel levels: 1, 4 with mips, 0 without texels.
    pub levels: u32,
    /// The external texture file an HMP7 skin names (never read).
    pub external: Option<String>,
    /// The skin an HMP7 skin refers to.
    pub reference: Option<u32>,
    /// Whether an HMP7 skin carries an MDL7 material.
    pub material: bool,
    /// The length of the text material definition an HMP7 skin may carry.
    pub definition_bytes: Option<u64>,
}

impl SkinSummary {
    fn of(skin: &Skin<'_>, page: CodePage) -> SkinSummary {
        SkinSummary {
            pixel: skin.format(),
            type_code: skin.type_code(),
            format: skin.format().name(),
            width: skin.width(),
            height: skin.height(),
            levels: u32::try_from(skin.num_levels()).unwrap_or(u32::MAX),
            external: skin.external().map(|name| text(page, name)),
            reference: skin.reference(),
            material: skin.material().is_some(),
            definition_bytes: skin.definition().map(|d| d.len() as u64),
        }
    }

    /// The skin in words: `rgb565 1272 × 1114, 1 level`, `external "bark.tga"`,
    /// `reference to skin 0`, plus `, material` and `, material definition (N bytes)`.
    fn describe(&self) -> String {
        let mut line = if let Some(target) = self.reference {
            format!("reference to skin {target}")
        } else if let Some(name) = &self.external {
            format!("external {name:?}")
        } else if self.pixel == PixelFormat::Dds {
            "dds (embedded file)".to_string()
        } else if self.levels == 0 {
            format!("{}, no texels", self.format)
        } else {
            format!(
                "{} {} × {}, {}",
                self.format,
                self.width,
                self.height,
                count(self.levels, "level", "levels")
            )
        };
        if self.material {
            line.push_str(", material");
        }
        if let Some(n) = self.definition_bytes {
            line.push_str(&format!(
                ", material definition ({})",
                count(n, "byte", "bytes")
            ));
        }
        line
    }
}

#[derive(Debug, Serialize)]
pub struct MaterialSummary {
    pub name: String,
    pub texture: String,
}

#[derive(Debug, Serialize)]
pub struct MeshSummary {
    pub name: Option<String>,
    pub shader: String,
    pub vertices: u32,
    pub triangles: u32,
    pub influences: u64,
    pub max_influences_per_vertex: u32,
    /// The parts drawn with one material each (an MS3D's groups).
    pub submeshes: Vec<SubmeshSummary>,
}

#[derive(Debug, Serialize)]
pub struct SubmeshSummary {
    pub name: String,
    pub material: Option<usize>,
    pub triangles: u32,
}

/// One kind of warning: what is wrong in plain words, then where it first occurred and how
/// often it occurred.
#[derive(Debug, Serialize)]
pub struct DiagnosticSummary {
    pub kind: String,
    pub what: &'static str,
    pub offset: u64,
    pub count: u64,
    pub detail: String,
}

impl DiagnosticSummary {
    /// One line: the kind, how often (when more than once), the first occurrence's detail,
    /// then its structure and offset: `a vertex's bone weights do not add up to 1, 12 times;
    /// first: weights sum to 0.9 (vertex.weight at offset 300)`.
    pub fn line(&self) -> String {
        let times = match self.count {
            0 | 1 => String::new(),
            n => format!(", {n} times; first"),
        };
        format!(
            "{}{times}: {} ({} at offset {})",
            self.kind, self.detail, self.what, self.offset
        )
    }
}

/// A name as text in the model's code page ([`Model::code_page`]).
fn text(page: CodePage, bytes: &[u8]) -> String {
    page.decode(bytes).into_owned()
}

impl Summary {
    /// The summary of a validated model of any format.
    pub fn of_model(file: &str, model: &Model<'_>) -> Result<Summary, String> {
        let companion = |kind| {
            model
                .companions()
                .find(|(k, _)| *k == kind)
                .map(|(_, path)| path.to_string())
        };
        let page = model.code_page();
        let bone_list: Vec<BoneSummary> = model.bones().map(|b| BoneSummary::of(b, page)).collect();
        let mesh_list: Vec<MeshSummary> = model
            .meshes()
            .map(|mesh| MeshSummary::of(model, &mesh, page))
            .collect();
        let ms3d = model.as_ms3d().is_some();
        let sl_anim =
            (model.as_sl_anim().copied()).or_else(|| model.as_sl_mdl().and_then(|m| m.anim()));
        let frame_names = match sl_anim {
            Some(anim) => anim.times().map(|t| format!("{t}s")).collect(),
            None if ms3d => Vec::new(),
            None => model.frame_names().map(|name| text(page, name)).collect(),
        };
        let s = Summary {
            file: file.to_string(),
            format: model.format().name(),
            size: model.size(),
            skeleton: companion(Companion::Skeleton),
            animation: companion(Companion::Animation),
            skin_file: companion(Companion::Skin),
            animation_config: companion(Companion::AnimationConfig),
            companions: model
                .companions()
                .map(|(kind, path)| CompanionSummary {
                    kind: kind.name(),
                    path: path.to_string(),
                    left_out: model.left_out().any(|(_, p)| p == path),
                })
                .collect(),
            // Levels past the model itself: companion files (SKM, MD3), or inside the file (MDR).
            levels_of_detail: (model
                .companions()
                .filter(|(k, _)| *k == Companion::LevelOfDetail)
                .count()
                + model
                    .as_mdr()
                    .map_or(0, |m| m.lods().len().saturating_sub(1)))
                as u32,
            bones: bone_list.len() as u32,
            roots: bone_list.iter().filter(|b| b.parent.is_none()).count() as u32,
            attachments: model.num_attachments() as u32,
            meshes: mesh_list.len() as u32,
            frames: model.num_frames() as u32,
            vertices: model.num_vertices() as u64,
            triangles: model.num_triangles() as u64,
            influences: mesh_list.iter().map(|m| m.influences).sum(),
            max_influences_per_vertex: mesh_list
                .iter()
                .map(|m| m.max_influences_per_vertex)
                .max()
                .unwrap_or(0),
            groups: ms3d.then(|| mesh_list.iter().map(|m| m.submeshes.len() as u32).sum()),
            joints: ms3d.then_some(bone_list.len() as u32),
            materials: model.num_materials() as u32,
            material_list: material_list(model, page),
            code_page: page.label(),
            skins: skin_list(model, page),
            grid: model.terrain().map(|g| [g.columns, g.rows]),
            attributes: model.as_sl_mdl().map(|m| {
                m.mdl()
                    .attributes()
                    .map(|(_, kind, v)| format!("{kind:?} ({} bytes)", v.size()))
                    .collect()
            }),
            body: model
                .as_hl1()
                .map(|pair| BodySummary::of(pair.model(), page)),
            bounds: model.as_dpm().map(|m| BoundsSummary {
                mins: m.mins(),
                maxs: m.maxs(),
                yaw_radius: m.yaw_radius(),
                all_radius: m.all_radius(),
            }),
            posed_bounds: bind_bounds(model)
                .map_err(|e| format!("{file}: {e}"))?
                .map(|b| PosedBounds {
                    mins: b.mins,
                    maxs: b.maxs,
                }),
            gpu_error: GpuError::of(model).map_err(|e| format!("{file}: {e}"))?,
            gpu_morph_error: GpuMorph::of(model).map_err(|e| format!("{file}: {e}"))?,
            frame_groups: model.clips().iter().map(GroupSummary::of).collect(),
            groups_from: groups_from(model.clip_origin()),
            bone_list,
            attachment_list: attachment_list(model, page),
            mesh_list,
            frame_names,
            diagnostics: model
                .diagnostics()
                .warnings()
                .iter()
                .map(DiagnosticSummary::of)
                .collect(),
        };
        Ok(s)
    }
}

impl BoneSummary {
    /// Bone `b`'s name, parent, flags and whether it is an attachment.
    fn of(b: Bone<'_>, page: CodePage) -> BoneSummary {
        BoneSummary {
            name: text(page, b.name()),
            parent: b.parent(),
            flags: b.flags(),
            attachment: b.is_attachment(),
        }
    }
}

impl MeshSummary {
    /// `mesh` of `model`, its shader the material of its first submesh.
    fn of(model: &Model<'_>, mesh: &Mesh<'_>, page: CodePage) -> MeshSummary {
        let (influences, max) = mesh.influence_counts();
        let submeshes: Vec<SubmeshSummary> = mesh
            .submeshes()
            .map(|sub| SubmeshSummary {
                name: text(page, sub.name()),
                material: sub.material(),
                triangles: sub.num_triangles() as u32,
            })
            .collect();
        let shader = mesh.submeshes().next().and_then(|s| s.material());
        MeshSummary {
            name: (!mesh.name().is_empty()).then(|| text(page, mesh.name())),
            shader: shader
                .and_then(|i| model.material(i))
                .map_or_else(String::new, |m| text(page, m.name)),
            vertices: mesh.num_vertices() as u32,
            triangles: mesh.num_triangles() as u32,
            influences,
            max_influences_per_vertex: max as u32,
            submeshes,
        }
    }
}

impl GroupSummary {
    /// Frame group `g`, field for field.
    fn of(g: &FrameGroup) -> GroupSummary {
        GroupSummary {
            name: g.name.clone(),
            first: g.first,
            count: g.count,
            fps: g.fps,
            looped: g.looped,
        }
    }
}

impl DiagnosticSummary {
    /// Warning `w`, its kind in words.
    pub fn of(w: &Warning) -> DiagnosticSummary {
        DiagnosticSummary {
            kind: w.kind.describe().to_string(),
            what: w.what,
            offset: w.offset,
            count: w.count,
            detail: w.detail.clone(),
        }
    }
}

/// Every material's name and texture.
/// Every attachment point, placed by the bind pose ([`Model::pose_bind`]: frame 0 but for
/// MS3D's rest pose).
fn attachment_list(model: &Model<'_>, page: CodePage) -> Vec<AttachmentSummary> {
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    model
        .attachments()
        .enumerate()
        .map(|(i, a)| {
            let (kind, index) = match a.kind {
                AttachmentKind::Bone(b) => ("bone", b),
                AttachmentKind::Tag(t) => ("tag", t),
            };
            let at = model.attachment_transform(i, &pose).ok();
            AttachmentSummary {
                name: text(page, a.name),
                kind,
                index,
                origin: at.map(|m| m.translation.to_array()),
                axes: at.map(|m| {
                    [
                        m.matrix3.x_axis.to_array(),
                        m.matrix3.y_axis.to_array(),
                        m.matrix3.z_axis.to_array(),
                    ]
                }),
            }
        })
        .collect()
}

fn material_list(model: &Model<'_>, page: CodePage) -> Vec<MaterialSummary> {
    (0..model.num_materials())
        .filter_map(|i| model.material(i))
        .map(|m| MaterialSummary {
            name: text(page, m.name),
            texture: text(page, m.texture),
        })
        .collect()
}

/// A list (perhaps empty) for the formats that embed skins, and for any model that has some
/// (so a new skinned format lists them without a change here); `None` for the others.
fn skin_list(model: &Model<'_>, page: CodePage) -> Option<Vec<SkinSummary>> {
    (matches!(model.view(), View::Mdl(_) | View::Quake(_))
        || model.terrain().is_some()
        || !model.skins().is_empty())
    .then(|| {
        model
            .skins()
            .iter()
            .map(|s| SkinSummary::of(s, page))
            .collect()
    })
}

/// Where named animations come from, in words.
fn groups_from(origin: ClipOrigin) -> &'static str {
    match origin {
        ClipOrigin::FrameNames => "frame names",
        ClipOrigin::FrameGroupsFile => "framegroups file",
        ClipOrigin::Timeline => "timeline",
        ClipOrigin::FrameGroups => "groups in the model",
        ClipOrigin::AnimationConfig => "animation.cfg",
        ClipOrigin::AnimationGroup => "animation group",
        _ => "none",
    }
}

/// The box around every mesh's vertices deformed by the bind pose.
fn bind_bounds(model: &Model<'_>) -> Result<Option<Aabb>, skelmap_core::model::DeformError> {
    let mut pose = Pose::default();
    model.pose_bind(&mut pose);
    let mut bounds: Option<Aabb> = None;
    let (mut positions, mut normals) = (Vec::new(), Vec::new());
    for mesh in model.meshes() {
        let n = mesh.num_vertices();
        positions.resize(n, [0.0; 3]);
        normals.resize(n, [0.0; 3]);
        model.deform(mesh.index(), &pose, &mut positions, &mut normals)?;
        let finite: Vec<[f32; 3]> = positions
            .iter()
            .copied()
            .filter(|p| p.iter().all(|c| c.is_finite()))
            .collect();
        if let Some(b) = Aabb::from_points(&finite) {
            bounds = Some(bounds.map_or(b, |a| a.union(&b)));
        }
    }
    Ok(bounds)
}

/// `n` and the noun, singular for one: "1 frame", "2 frames".
pub(crate) fn count(n: impl Into<u64>, singular: &str, plural: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// The readable rendering of a summary: what the file is and holds, its counts and bounds,
/// then the bone tree, the meshes, the frames and the diagnostics.
pub fn render_text(s: &Summary, out: &mut String) {
    render_contents(s, out);
    render_counts(s, out);
    render_bone_tree(s, out);
    render_attachments(s, out);
    render_meshes(s, out);
    render_frames(s, out);
    render_diagnostics(s, out);
}

/// The first line (file, format, size), then the skins, grid, attributes, animation,
/// materials, skeleton and the files opened with the model, each where the model has them.
fn render_contents(s: &Summary, out: &mut String) {
    let _ = writeln!(out, "{}: {} model, {} bytes", s.file, s.format, s.size);
    if let Some(skins) = &s.skins {
        if skins.is_empty() {
            let _ = writeln!(out, "  skins: none");
        }
        for (i, skin) in skins.iter().enumerate() {
            let _ = writeln!(out, "  skin {i}: {}", skin.describe());
        }
    }
    if let Some([nx, ny]) = s.grid {
        let _ = writeln!(out, "  terrain grid {nx} × {ny}");
    }
    if let Some(attributes) = &s.attributes {
        let _ = writeln!(out, "  attributes: {}", attributes.join(", "));
    }
    if let Some(body) = s.body.as_ref().filter(|b| !b.parts.is_empty()) {
        let _ = writeln!(
            out,
            "  body {} (--body N: each part shows model N / base % models):",
            body.value
        );
        for (p, part) in body.parts.iter().enumerate() {
            let models: Vec<String> = part
                .models
                .iter()
                .enumerate()
                .map(|(m, name)| {
                    let mark = if m == part.shown { "*" } else { "" };
                    format!("{mark}{m} {name}")
                })
                .collect();
            let _ = writeln!(
                out,
                "    part {p} {} (base {}): {}",
                part.name,
                part.base,
                models.join(", ")
            );
        }
    }
    if let Some(animation) = &s.animation {
        let _ = writeln!(out, "  animation {animation}");
    }
    if !s.material_list.is_empty() {
        let list: Vec<String> = s
            .material_list
            .iter()
            .map(|m| {
                if m.name.is_empty() && m.texture.is_empty() {
                    // Shown, not left blank: `shader ""` is common in MD5 files.
                    "(unnamed)".to_string()
                } else if m.texture.is_empty() || m.texture == m.name {
                    m.name.clone()
                } else {
                    format!("{}: texture {:?}", m.name, m.texture)
                }
            })
            .collect();
        let _ = writeln!(out, "  materials: {}", list.join("; "));
    }
    if s.code_page != CodePage::Utf8.label() {
        // Said where it is not the default: a conversion keeps the names in it.
        let _ = writeln!(out, "  names in {}", s.code_page);
    }
    if let Some(skeleton) = &s.skeleton {
        let _ = writeln!(
            out,
            "  skeleton {skeleton}, {}",
            count(s.levels_of_detail, "level of detail", "levels of detail")
        );
    } else if s.levels_of_detail > 0 {
        let _ = writeln!(
            out,
            "  {}",
            count(s.levels_of_detail, "level of detail", "levels of detail")
        );
    }
    if let Some(skin) = &s.skin_file {
        let _ = writeln!(out, "  skin file {skin}");
    }
    if let Some(cfg) = &s.animation_config {
        let _ = writeln!(out, "  clips from {cfg}");
    }
    if !s.companions.is_empty() {
        let files = count(s.companions.len() as u32, "file", "files");
        let _ = writeln!(out, "  opened with {files}:");
        for c in &s.companions {
            // Why it was left out is in the diagnostics below.
            let left_out = if c.left_out { ", left out" } else { "" };
            let _ = writeln!(
                out,
                "    {} ({}{left_out})",
                c.path,
                c.kind.replace('_', " ")
            );
        }
    }
}

/// The bone, mesh, frame, vertex, triangle and influence counts, then the stored and the
/// bind-pose bounds where there are some, and the GPU skinning error of a skeletal model.
fn render_counts(s: &Summary, out: &mut String) {
    let bones = if s.bones == 0 {
        "no bones".to_string()
    } else {
        format!(
            "{} ({}, {})",
            count(s.bones, "bone", "bones"),
            count(s.roots, "root", "roots"),
            count(s.attachments, "attachment", "attachments")
        )
    };
    let _ = writeln!(
        out,
        "  {bones}, {}, {}",
        count(s.meshes, "mesh", "meshes"),
        count(s.frames, "frame", "frames")
    );
    let influences = if s.influences == 0 {
        String::new()
    } else {
        format!(
            ", {} (at most {} per vertex)",
            count(s.influences, "influence", "influences"),
            s.max_influences_per_vertex
        )
    };
    let _ = writeln!(
        out,
        "  {}, {}{influences}",
        count(s.vertices, "vertex", "vertices"),
        count(s.triangles, "triangle", "triangles")
    );
    if let Some(b) = &s.bounds {
        let _ = writeln!(
            out,
            "  bounds {:?} .. {:?}, yaw radius {}, radius {}",
            b.mins, b.maxs, b.yaw_radius, b.all_radius
        );
    }
    if let Some(b) = &s.posed_bounds {
        let _ = writeln!(out, "  bind-pose bounds {:?} .. {:?}", b.mins, b.maxs);
    }
    if let Some(g) = &s.gpu_error {
        let _ = writeln!(out, "  {}", g.line());
    }
    if let Some(g) = &s.gpu_morph_error {
        let _ = writeln!(out, "  {}", g.line());
    }
}

/// Bones deeper than this are indented as far as this depth, and their line ends with the
/// depth as a number, so that a line's length does not grow with the depth of the tree.
const TREE_INDENT_DEPTHS: usize = 32;

/// Each bone under its parent, indented by its depth.
fn render_bone_tree(s: &Summary, out: &mut String) {
    if !s.bone_list.is_empty() {
        let _ = writeln!(out, "  bone tree:");
    }
    write_bone_lines(&s.bone_list, out);
}

/// A line per bone, in file order: indented by two spaces per level of depth up to
/// [`TREE_INDENT_DEPTHS`] levels, then ` [depth N]` after the name instead.
fn write_bone_lines(bones: &[BoneSummary], out: &mut String) {
    for ((i, bone), depth) in bones.iter().enumerate().zip(bone_depths(bones)) {
        let tag = if bone.attachment { " [attachment]" } else { "" };
        let deep = if depth > TREE_INDENT_DEPTHS {
            format!(" [depth {depth}]")
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "    {:indent$}{i:>3} {}{deep}{tag}",
            "",
            bone.name,
            indent = 2 * depth.min(TREE_INDENT_DEPTHS)
        );
    }
}

/// Each bone's depth: the number of parents above it, a parent index out of range counting
/// as one; found in one pass over the bones whatever their order (an MS3D's parents may
/// come after their children). The models `info` reads have no parent cycle; a bone on one,
/// or below one, is given the bone count, as walking its chain until that many steps would.
fn bone_depths(bones: &[BoneSummary]) -> Vec<usize> {
    const UNKNOWN: usize = usize::MAX;
    const FOLLOWING: usize = usize::MAX - 1;
    let n = bones.len();
    let mut depth = vec![UNKNOWN; n];
    // The bones followed up from the current one whose depths are not known yet.
    let mut path = Vec::new();
    for start in 0..n {
        if depth[start] != UNKNOWN {
            continue;
        }
        let mut at = start;
        // The depth of the last bone on the path (the one nearest a root).
        let top = loop {
            depth[at] = FOLLOWING;
            path.push(at);
            let parent = bones[at].parent.map(|p| (p, depth.get(p).copied()));
            match parent {
                // A root.
                None => break 0,
                // A parent out of range: counted, with nothing above it.
                Some((_, None)) => break 1,
                Some((p, Some(UNKNOWN))) => at = p,
                // Back on the path: a cycle.
                Some((_, Some(FOLLOWING))) => break n,
                Some((_, Some(d))) => break d.saturating_add(1).min(n),
            }
        };
        for (below, &bone) in path.iter().rev().enumerate() {
            depth[bone] = top.saturating_add(below).min(n);
        }
        path.clear();
    }
    depth
}

/// The attachment points that are not bones already marked in the tree (every one of a
/// model without bones: MD3 tags), with where the bind pose puts them.
fn render_attachments(s: &Summary, out: &mut String) {
    let tags: Vec<&AttachmentSummary> = s
        .attachment_list
        .iter()
        .filter(|a| a.kind != "bone")
        .collect();
    if tags.is_empty() {
        return;
    }
    let _ = writeln!(out, "  tags:");
    for a in tags {
        let at = a.origin.map(|o| format!(" at {o:?}")).unwrap_or_default();
        let _ = writeln!(out, "    {:>3} {}{at}", a.index, a.name);
    }
}

/// A line per mesh, and one per submesh where a mesh has several.
fn render_meshes(s: &Summary, out: &mut String) {
    if !s.mesh_list.is_empty() {
        let _ = writeln!(out, "  meshes:");
    }
    for (i, m) in s.mesh_list.iter().enumerate() {
        let name = m
            .name
            .as_deref()
            .map(|n| format!("{n:?} "))
            .unwrap_or_default();
        let shader = if m.shader.is_empty() {
            String::new()
        } else {
            format!("shader {:?}: ", m.shader)
        };
        let influences = if m.influences == 0 {
            String::new()
        } else {
            format!(
                ", {} (max {})",
                count(m.influences, "influence", "influences"),
                m.max_influences_per_vertex
            )
        };
        let _ = writeln!(
            out,
            "    {i:>3} {name}{shader}{}, {}{influences}",
            count(m.vertices, "vertex", "vertices"),
            count(m.triangles, "triangle", "triangles")
        );
        if m.submeshes.len() > 1 {
            for sub in &m.submeshes {
                let _ = writeln!(
                    out,
                    "          {:?}: {}, material {}",
                    sub.name,
                    count(sub.triangles, "triangle", "triangles"),
                    sub.material
                        .map_or_else(|| "none".to_string(), |k| k.to_string())
                );
            }
        }
    }
}

/// The first frame names (where any has one), then the frame groups.
fn render_frames(s: &Summary, out: &mut String) {
    // Frames without names (a terrain's) say nothing worth a line.
    if s.frame_names.iter().any(|n| !n.is_empty()) {
        let _ = write!(out, "  frames:");
        const SHOWN: usize = 12;
        for name in s.frame_names.iter().take(SHOWN) {
            let _ = write!(out, " {name}");
        }
        if s.frame_names.len() > SHOWN {
            let more = s.frame_names.len() - SHOWN;
            let last = s.frame_names.last().map_or("", String::as_str);
            let _ = write!(out, " … ({more} more, last {last})");
        }
        let _ = writeln!(out);
    }
    if s.frame_groups.is_empty() {
        return;
    }
    let _ = writeln!(out, "  clips (from {}):", s.groups_from);
    // Columns as wide as their longest entry, so that a long clip name moves them all.
    let width = s
        .frame_groups
        .iter()
        .map(|g| g.name.chars().count())
        .chain([4])
        .max()
        .unwrap_or(4);
    let _ = writeln!(
        out,
        "    {:<width$}  {:>6}  {:>6}  {:>6}  {:>8}  loops",
        "clip", "first", "last", "fps", "seconds"
    );
    for g in &s.frame_groups {
        // `count` frames at `fps` play for `count / fps` seconds.
        let seconds = f64::from(g.count) / f64::from(g.fps);
        let _ = writeln!(
            out,
            "    {:<width$}  {:>6}  {:>6}  {:>6}  {:>8.3}  {}",
            g.name,
            g.first,
            (g.first + g.count).saturating_sub(1),
            g.fps,
            seconds,
            if g.looped { "yes" } else { "no" }
        );
    }
}

/// Each diagnostic, or `none`.
fn render_diagnostics(s: &Summary, out: &mut String) {
    if s.diagnostics.is_empty() {
        let _ = writeln!(out, "  diagnostics: none");
    } else {
        let _ = writeln!(out, "  diagnostics:");
        for d in &s.diagnostics {
            let _ = writeln!(out, "    - {}", d.line());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        BoneSummary, GPU_ERROR_BUDGET, TREE_INDENT_DEPTHS, bone_depths, measured_frames,
        write_bone_lines,
    };

    fn bone(name: &str, parent: Option<usize>) -> BoneSummary {
        BoneSummary {
            name: name.to_string(),
            parent,
            flags: 0,
            attachment: false,
        }
    }

    #[test]
    fn a_shallow_tree_is_indented_two_spaces_a_level() {
        let mut bones = vec![
            bone("root", None),
            bone("spine", Some(0)),
            bone("head", Some(1)),
            bone("tag_weapon", Some(1)),
            bone("other_root", None),
        ];
        bones[3].attachment = true;
        let mut out = String::new();
        write_bone_lines(&bones, &mut out);
        assert_eq!(
            out,
            "      0 root\n        1 spine\n          2 head\n          3 tag_weapon \
             [attachment]\n      4 other_root\n"
        );
    }

    /// Parents after their children (as an MS3D may list joints), a parent out of range, and
    /// a cycle (which no model `info` reads holds) get the depths walking each chain gives.
    #[test]
    fn depths_do_not_depend_on_the_order_of_the_bones() {
        let bones = [
            bone("c", Some(1)),
            bone("b", Some(2)),
            bone("a", None),
            bone("d", Some(0)),
            bone("stray", Some(99)),
            bone("under_stray", Some(4)),
            bone("loop_a", Some(7)),
            bone("loop_b", Some(6)),
            bone("under_loop", Some(7)),
        ];
        assert_eq!(bone_depths(&bones), [2, 1, 0, 3, 1, 2, 9, 9, 9]);
        assert_eq!(bone_depths(&[]), Vec::<usize>::new());
    }

    /// A chain of 20,000 bones: lines past the indented depths are indented as the last of
    /// them and say their depth, so the text grows with the bone count alone.
    #[test]
    fn a_deep_chain_is_indented_up_to_a_limit_and_then_numbered() {
        let n = 20_000;
        // Listed deepest first, so no parent comes before its child.
        let bones: Vec<BoneSummary> = (0..n)
            .map(|i| bone(&format!("j{}", n - 1 - i), (i + 1 < n).then_some(i + 1)))
            .collect();
        let depths = bone_depths(&bones);
        assert!(depths.iter().enumerate().all(|(i, &d)| d == n - 1 - i));
        let mut out = String::new();
        write_bone_lines(&bones, &mut out);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), n);
        let pad = |depth: usize| " ".repeat(4 + 2 * depth);
        assert_eq!(lines[n - 1], format!("{}{:>3} j0", pad(0), n - 1));
        let at = |depth: usize| lines[n - 1 - depth];
        assert_eq!(
            at(TREE_INDENT_DEPTHS),
            format!("{}{} j32", pad(32), n - 1 - 32)
        );
        assert_eq!(
            at(TREE_INDENT_DEPTHS + 1),
            format!("{}{} j33 [depth 33]", pad(32), n - 1 - 33)
        );
        assert_eq!(lines[0], format!("{}  0 j19999 [depth 19999]", pad(32)));
        assert!(lines.iter().all(|l| l.len() <= 4 + 64 + 5 + 1 + 6 + 14));
    }

    #[test]
    fn every_frame_is_measured_within_the_budget_and_an_even_spread_beyond() {
        assert_eq!(measured_frames(1, 10), [0]);
        assert_eq!(measured_frames(703, 8_507), (0..703).collect::<Vec<_>>());
        // 80,000 vertices: 200 of 5,031 frames, the first and the last among them.
        let spread = measured_frames(5_031, 80_000);
        assert_eq!(spread.len(), GPU_ERROR_BUDGET / 80_000);
        assert_eq!((spread[0], spread[199]), (0, 5_030));
        assert!(spread.windows(2).all(|w| w[0] < w[1] && w[1] - w[0] <= 26));
        // Past the budget in one frame: the first and the last.
        assert_eq!(measured_frames(9, GPU_ERROR_BUDGET * 2), [0, 8]);
        assert_eq!(measured_frames(1, GPU_ERROR_BUDGET * 2), [0]);
    }
}
