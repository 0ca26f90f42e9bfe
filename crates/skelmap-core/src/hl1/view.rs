//! The validated HL1 views and their accessors, and what `Model` reads through them: one
//! mesh made of the model each body part shows for the body value (a submesh per studio
//! mesh), the triangle
//! commands' vertices as the mesh's vertices, each rigid on its bone and presented in the
//! bind pose of the bones' default values; the sequences' first blends as frames and clips.

use std::sync::OnceLock;

use glam::{Affine3A, Quat, Vec3A};
use zerocopy::LittleEndian;
use zerocopy::byteorder::{F32, I16};

use super::channels::{ChannelRows, SequenceChannels};
use super::raw::{self, StudioHdr};
use crate::alias::skin::Skin;
use crate::format::Format;
use crate::name;
use crate::pose::bounds::Aabb;
use crate::pose::framegroups::FrameGroup;
use crate::pose::{BindPoseMesh, BindVertex, Bone, LocalPose, PoseFrames, Skeleton, euler};
use crate::read::slice_in;
use crate::view::{ClipOrigin, IndexedNames, MeshView, ModelView, Submesh, TexcoordLayout};

/// A validated studio file (`IDST`): the main model, or a texture file (`<stem>T.mdl`).
/// Every accessor is infallible on it.
#[derive(Debug, Clone)]
pub struct Hl1<'data> {
    pub(super) data: &'data [u8],
    pub(super) header: &'data StudioHdr,
    pub(super) bones: &'data [raw::Bone],
    pub(super) controllers: &'data [raw::BoneController],
    pub(super) hitboxes: &'data [raw::BBox],
    pub(super) seqgroups: &'data [raw::SeqGroup],
    pub(super) sequences: &'data [raw::SeqDesc],
    pub(super) bodyparts: &'data [raw::BodyPart],
    pub(super) textures: &'data [raw::Texture],
    /// `numskinfamilies × numskinref` texture indices (empty without textures).
    pub(super) skins: &'data [I16<LittleEndian>],
    pub(super) num_skinref: usize,
    pub(super) attachments: &'data [raw::Attachment],
    /// The body value shown: which model of each body part ([`Hl1::body_model`]).
    pub(super) body: u32,
    /// The studio meshes of the model each body part shows, in order.
    pub(super) meshes: Vec<MeshInfo>,
    pub(super) num_vertices: usize,
    pub(super) num_triangles: usize,
}

/// One studio mesh of the shown models: where it is and what of the model's one mesh it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshInfo {
    /// The body part.
    pub bodypart: u32,
    /// Offset of its `mstudiomodel_t`.
    pub model_at: u32,
    /// Offset of its `mstudiomesh_t`.
    pub mesh_at: u32,
    /// Offset of its triangle commands.
    pub tricmds_at: u32,
    /// Its first vertex in the model's mesh.
    pub first_vertex: u32,
    /// Its vertices (one per triangle-command vertex).
    pub num_vertices: u32,
    /// Its first triangle in the model's mesh.
    pub first_triangle: u32,
    /// Its triangles.
    pub num_triangles: u32,
    /// Its skin reference, as stored.
    pub skinref: i32,
}

/// One triangle command of the shown meshes, found on first use of the mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    /// Offset of its first vertex record.
    pub at: u32,
    /// Its first vertex in the model's mesh.
    pub first_vertex: u32,
    /// Its first triangle in the model's mesh.
    pub first_triangle: u32,
    /// Its vertices (at least 3).
    pub count: u16,
    /// A fan (stored count negative) rather than a strip.
    pub fan: bool,
    /// The studio mesh it belongs to.
    pub mesh: u16,
}

impl<'data> Hl1<'data> {
    /// The bytes the view reads (the declared `length` of them).
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The header as stored.
    #[must_use]
    pub fn header(&self) -> &'data StudioHdr {
        self.header
    }

    /// The model's name, up to its first NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(&self.header.name)
    }

    /// Number of bones.
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.bones.len()
    }

    /// The bones as stored.
    #[must_use]
    pub fn bones(&self) -> &'data [raw::Bone] {
        self.bones
    }

    /// The bone controllers as stored.
    #[must_use]
    pub fn controllers(&self) -> &'data [raw::BoneController] {
        self.controllers
    }

    /// The hit boxes as stored (metadata: each names a bone).
    #[must_use]
    pub fn hitboxes(&self) -> &'data [raw::BBox] {
        self.hitboxes
    }

    /// The sequence groups as stored (group 0 is this file).
    #[must_use]
    pub fn seqgroups(&self) -> &'data [raw::SeqGroup] {
        self.seqgroups
    }

    /// The sequences as stored.
    #[must_use]
    pub fn sequences(&self) -> &'data [raw::SeqDesc] {
        self.sequences
    }

    /// The events of sequence `i` (metadata), or `None` out of range.
    #[must_use]
    pub fn events(&self, i: usize) -> Option<&'data [raw::Event]> {
        let s = self.sequences.get(i)?;
        slice_in(
            self.data,
            s.eventindex.get() as u64,
            s.numevents.get() as u64,
        )
    }

    /// The body parts as stored.
    #[must_use]
    pub fn bodyparts(&self) -> &'data [raw::BodyPart] {
        self.bodyparts
    }

    /// The body value whose models the mesh shows: 0 as parsed (every body part's first
    /// model), or the one [`with_body`](Hl1::with_body) chose.
    #[must_use]
    pub fn body(&self) -> u32 {
        self.body
    }

    /// Model `choice` of body part `part` (every one validated), or `None` out of range.
    #[must_use]
    pub fn model(&self, part: usize, choice: usize) -> Option<&'data raw::Model> {
        let p = self.bodyparts.get(part)?;
        let models: &[raw::Model] = slice_in(
            self.data,
            p.modelindex.get() as u64,
            p.nummodels.get() as u64,
        )?;
        models.get(choice)
    }

    /// The meshes of a model of this file (validated with it).
    #[must_use]
    pub fn model_meshes(&self, model: &raw::Model) -> &'data [raw::Mesh] {
        slice_in(
            self.data,
            model.meshindex.get() as u64,
            model.nummesh.get() as u64,
        )
        .unwrap_or_default()
    }

    /// The textures as stored (none in a model whose textures are in `<stem>T.mdl`).
    #[must_use]
    pub fn textures(&self) -> &'data [raw::Texture] {
        self.textures
    }

    /// Texture `i`'s palette indices (`width × height`, row-major) and its 256 RGB entries.
    #[must_use]
    pub fn texture_pixels(&self, i: usize) -> Option<(&'data [u8], &'data [[u8; 3]; 256])> {
        let t = self.textures.get(i)?;
        let n = t.width.get() as u64 * t.height.get() as u64;
        let at = t.index.get() as u64;
        let pixels: &[u8] = slice_in(self.data, at, n)?;
        let palette: &[[u8; 3]] = slice_in(self.data, at + n, 256)?;
        Some((pixels, palette.try_into().ok()?))
    }

    /// Number of skin references a family has.
    #[must_use]
    pub fn num_skinref(&self) -> usize {
        self.num_skinref
    }

    /// Number of skin families (0 without textures).
    #[must_use]
    pub fn num_skin_families(&self) -> usize {
        self.skins.len().checked_div(self.num_skinref).unwrap_or(0)
    }

    /// The texture skin reference `skinref` names in family `family`.
    #[must_use]
    pub fn skin_texture(&self, family: usize, skinref: usize) -> Option<usize> {
        if skinref >= self.num_skinref {
            return None;
        }
        let i = family.checked_mul(self.num_skinref)? + skinref;
        self.skins.get(i).map(|t| t.get() as usize)
    }

    /// The attachments as stored.
    #[must_use]
    pub fn attachments(&self) -> &'data [raw::Attachment] {
        self.attachments
    }

    /// The studio meshes of the model each body part shows ([`body`](Hl1::body)), in order.
    #[must_use]
    pub fn meshes(&self) -> &[MeshInfo] {
        &self.meshes
    }

    /// Vertices of the model's one mesh (a vertex per triangle-command vertex).
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    /// Triangles of the model's one mesh.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.num_triangles
    }

    /// The default (bind) pose of `bone`: its `value` channels, the angles made a rotation
    /// as the engine's `AngleQuaternion` makes one.
    #[must_use]
    pub fn default_pose(&self, bone: usize) -> Option<(Quat, Vec3A)> {
        let v = self.bones.get(bone)?.value.map(|c| c.get());
        Some((
            angle_quaternion([v[3], v[4], v[5]]),
            Vec3A::new(v[0], v[1], v[2]),
        ))
    }

    /// Decodes the triangle commands of the shown meshes: the table vertex and triangle
    /// lookups search (made once, on the mesh's first use).
    fn commands(&self) -> Vec<Command> {
        let meshes = self.meshes.iter().enumerate();
        meshes
            .flat_map(|(m, info)| self.mesh_commands(m, info))
            .collect()
    }

    /// The triangle commands of studio mesh `m` (`info`), in order, read as they are walked.
    fn mesh_commands(&self, m: usize, info: &MeshInfo) -> impl Iterator<Item = Command> + 'data {
        let data = self.data;
        let (mut at, mut vertex, mut triangle) = (
            info.tricmds_at as usize,
            info.first_vertex,
            info.first_triangle,
        );
        // Validated: every command up to the terminating 0 is in bounds.
        core::iter::from_fn(move || {
            let count = data.get(at..at + 2)?;
            let count = i16::from_le_bytes([count[0], count[1]]);
            let n = i32::from(count).unsigned_abs();
            if n < 3 {
                return None;
            }
            let command = Command {
                at: at as u32 + 2,
                first_vertex: vertex,
                first_triangle: triangle,
                count: n as u16,
                fan: count < 0,
                mesh: m as u16,
            };
            vertex += n;
            triangle += n - 2;
            at += 2 + 8 * n as usize;
            Some(command)
        })
    }

    fn trivert(&self, commands: &[Command], v: usize) -> Option<(&'data raw::Trivert, u16)> {
        let v = u32::try_from(v).ok()?;
        let c = commands.partition_point(|c| c.first_vertex + u32::from(c.count) <= v);
        let cmd = commands.get(c)?;
        let at = u64::from(cmd.at) + 8 * u64::from(v - cmd.first_vertex);
        let tv: &[raw::Trivert] = slice_in(self.data, at, 1)?;
        Some((tv.first()?, cmd.mesh))
    }

    fn triangle_in(commands: &[Command], t: usize) -> Option<[u32; 3]> {
        let t = u32::try_from(t).ok()?;
        let c = commands.partition_point(|c| c.first_triangle + u32::from(c.count) - 2 <= t);
        let cmd = commands.get(c)?;
        let k = t - cmd.first_triangle;
        let v = |i: u32| cmd.first_vertex + i;
        // The order GL draws a strip or fan in, then reversed to face counter-clockwise.
        Some(if cmd.fan {
            [v(k + 2), v(k + 1), v(0)]
        } else if k % 2 == 0 {
            [v(k + 2), v(k + 1), v(k)]
        } else {
            [v(k + 2), v(k), v(k + 1)]
        })
    }
}

/// `AngleQuaternion` of Half-Life's `mathlib`: roll about X, then pitch about Y, then yaw
/// about Z (`angles` = roll, pitch, yaw in radians). The sines and cosines come from one
/// four-lane polynomial, within 1.2·10⁻⁷ of `f32::sin_cos`; a frame's bones are converted
/// sixteen at a time in the same arithmetic.
#[must_use]
pub fn angle_quaternion(angles: [f32; 3]) -> Quat {
    euler::quat_from_zyx(angles)
}

/// The position components of `bone` that sequence `s` zeroes: on its motion bone, those its
/// `motiontype` flags `STUDIO_X`, `STUDIO_Y`, `STUDIO_Z`, as the engine's and the model
/// viewer's `StudioCalcRotations` do (the movement is the entity's, not the bone's). A motion
/// bone out of range zeroes nothing.
fn motion_zeroed(s: &raw::SeqDesc, bone: usize) -> [bool; 3] {
    if usize::try_from(s.motionbone.get()).ok() != Some(bone) {
        return [false; 3];
    }
    let motion = s.motiontype.get() as u32;
    [raw::STUDIO_X, raw::STUDIO_Y, raw::STUDIO_Z].map(|bit| motion & bit != 0)
}

/// Bone `b`'s six channels at each of `frames`, from its animation record at `record` in
/// `data`, written into lane `lane` of `rows`: each its default value plus the decoded value
/// times its scale, the position components `zeroed` flags 0. Each channel's runs are walked
/// once for all the frames. Returns, per frame, whether its channels were decoded: not where
/// the record or one of the frame's channel's runs leave `data` (the lane is then partly
/// written).
fn bone_channels_into<const N: usize>(
    data: &[u8],
    record: usize,
    b: &raw::Bone,
    frames: [u32; N],
    zeroed: [bool; 3],
    (rows, lane): (&mut [ChannelRows; N], usize),
) -> [bool; N] {
    let Some(anim) = slice_in::<raw::Anim>(data, record as u64, 1).and_then(<[_]>::first) else {
        return [false; N];
    };
    let mut decoded = [true; N];
    for j in 0..6 {
        let offset = usize::from(anim.offset[j].get());
        let (value, scale) = (b.value[j].get(), b.scale[j].get());
        if j < 3 && zeroed[j] {
            for rows in rows.iter_mut() {
                rows[j][lane] = 0.0;
            }
        } else if offset == 0 {
            for rows in rows.iter_mut() {
                rows[j][lane] = value;
            }
        } else {
            let values = channel_values(data, record + offset, frames);
            for ((rows, decoded), v) in rows.iter_mut().zip(&mut decoded).zip(values) {
                match v {
                    Some(v) => rows[j][lane] = value + f32::from(v) * scale,
                    None => *decoded = false,
                }
            }
        }
    }
    decoded
}

/// Adds each controller's adjustment in `adjust` to its channel in lane `lane` of `rows`, as
/// the engine adds it to the decoded channel; a position `zeroed` stays 0.
fn adjust_lane(
    (rows, lane): (&mut ChannelRows, usize),
    zeroed: [bool; 3],
    adjust: [Option<f32>; 6],
) {
    for (j, a) in adjust.into_iter().enumerate() {
        if let Some(a) = a
            && !(j < 3 && zeroed[j])
            && let Some(slot) = rows[j].get_mut(lane)
        {
            *slot += a;
        }
    }
}

/// The value of the run-length channel at `at` in `data` at frame `frame`: the engine's walk
/// (`StudioCalcBonePosition`), past a run's stored values its last one. `None` where the runs
/// end or leave `data`; every step consumes a frame of at least one, so the walk ends.
#[must_use]
pub fn channel_value(data: &[u8], at: usize, frame: u32) -> Option<i16> {
    let [value] = channel_values(data, at, [frame]);
    value
}

/// [`channel_value`] at each of `frames`, in one walk over the runs: the walk stops once every
/// frame's value is found or the runs end.
fn channel_values<const N: usize>(
    data: &[u8],
    mut at: usize,
    frames: [u32; N],
) -> [Option<i16>; N] {
    let mut out = [None; N];
    if N > 2 && (1..N).all(|k| frames[k] == frames[0].wrapping_add(k as u32)) {
        // Consecutive frames: walk to the first, then on, run after run.
        let (mut k, mut i) = (frames[0], 0);
        while i < N {
            let Some(&[valid, total]) = data.get(at..at + 2) else {
                break;
            };
            let (valid, total) = (u32::from(valid), u32::from(total));
            if total == 0 || valid == 0 {
                break;
            }
            while i < N && k < total {
                let v = at + 2 * (k.min(valid - 1) as usize + 1);
                out[i] = data.get(v..v + 2).map(|v| i16::from_le_bytes([v[0], v[1]]));
                (i, k) = (i + 1, k + 1);
            }
            // Every step fills a frame or moves past a run of at least one frame.
            k = k.saturating_sub(total);
            at += 2 * (valid as usize + 1);
        }
        return out;
    }
    let (mut left, mut pending) = (frames, [true; N]);
    while pending.contains(&true) {
        let Some(&[valid, total]) = data.get(at..at + 2) else {
            break;
        };
        let (valid, total) = (u32::from(valid), u32::from(total));
        if total == 0 || valid == 0 {
            break;
        }
        for ((slot, k), pending) in out.iter_mut().zip(&mut left).zip(&mut pending) {
            if !*pending {
                continue;
            }
            if total > *k {
                let i = at + 2 * ((*k).min(valid - 1) as usize + 1);
                *slot = data.get(i..i + 2).map(|v| i16::from_le_bytes([v[0], v[1]]));
                *pending = false;
            } else {
                *k -= total;
            }
        }
        at += 2 * (valid as usize + 1);
    }
    out
}

/// What [`Pair::chunk_poses`] decodes: frames of one sequence, its channels and the bytes
/// they are in (`None` where the group's file is missing or no frame is in the sequence).
struct Frames<'a, 'data, const N: usize> {
    data: Option<&'data [u8]>,
    channels: Option<&'a SequenceChannels>,
    frames: [u32; N],
    /// Per frame, whether it is in the sequence.
    decodable: [bool; N],
    sequence: usize,
    controls: Option<&'a Controls>,
}

/// One playable sequence (its group's file found): where its frames start among the model's.
#[derive(Debug, Clone, Copy)]
pub(super) struct SeqFrames {
    pub(super) sequence: u32,
    pub(super) first: u32,
    pub(super) count: u32,
}

/// A Half-Life model opened with its companions: the texture file (`<stem>T.mdl`, or
/// `<stem>t.mdl`) when the model has no textures, and the sequence-group files
/// (`<stem>01.mdl` …). Sequences whose group file was not found are not played.
#[derive(Debug, Clone)]
pub struct Pair<'data> {
    // Boxed, so that a `Model`'s view of any format stays small.
    pub(super) main: Box<Hl1<'data>>,
    pub(super) texture_file: Option<Box<Hl1<'data>>>,
    /// Per sequence group, the bytes its animations are read from (group 0: the main file).
    pub(super) groups: Vec<Option<&'data [u8]>>,
    pub(super) clips: Vec<SeqFrames>,
    pub(super) num_frames: usize,
    pub(super) skins: Vec<Skin<'data>>,
    pub(super) commands: OnceLock<Vec<Command>>,
    pub(super) bind_local: OnceLock<Vec<(Quat, Vec3A)>>,
    pub(super) bind_world: OnceLock<Vec<Affine3A>>,
    /// Each studio model's vertices, then its normals, moved into the bind pose, the models
    /// in the order their studio meshes first name them; made on first use
    /// ([`Pair::bind_moved`]).
    pub(super) bind_moved: OnceLock<Vec<[f32; 3]>>,
    /// Per sequence, its channels resolved, made on first use.
    pub(super) channels: OnceLock<Box<[OnceLock<SequenceChannels>]>>,
}

impl<'data> Pair<'data> {
    /// Pairs `main` with its texture file and group files (`groups[g]` for group `g ≥ 1`,
    /// validated against `main`).
    pub(super) fn new(
        main: Hl1<'data>,
        texture_file: Option<Hl1<'data>>,
        mut groups: Vec<Option<&'data [u8]>>,
    ) -> Pair<'data> {
        groups.insert(0, Some(main.data));
        groups.resize(main.seqgroups.len().max(1), None);
        let mut clips = Vec::new();
        let mut first = 0u32;
        for (i, s) in main.sequences.iter().enumerate() {
            let group = s.seqgroup.get() as u32;
            if groups.get(group as usize).copied().flatten().is_none() {
                continue;
            }
            let count = s.numframes.get() as u32;
            clips.push(SeqFrames {
                sequence: i as u32,
                first,
                count,
            });
            first = first.saturating_add(count);
        }
        let source = texture_file.as_ref().unwrap_or(&main);
        let skins = (0..source.textures.len())
            .filter_map(|i| {
                let t = &source.textures[i];
                let (pixels, palette) = source.texture_pixels(i)?;
                // The engine draws a masked texture's last palette entry transparent.
                let masked = t.flags.get() as u32 & raw::STUDIO_NF_MASKED != 0;
                Some(Skin::indexed_with_palette(
                    t.flags.get(),
                    (t.width.get() as u32, t.height.get() as u32),
                    pixels,
                    (palette, masked.then_some(255)),
                    name::trim_nul(&t.name),
                ))
            })
            .collect();
        Pair {
            main: Box::new(main),
            texture_file: texture_file.map(Box::new),
            groups,
            clips,
            num_frames: first as usize,
            skins,
            commands: OnceLock::new(),
            bind_local: OnceLock::new(),
            bind_world: OnceLock::new(),
            bind_moved: OnceLock::new(),
            channels: OnceLock::new(),
        }
    }

    /// The model file.
    #[must_use]
    pub fn model(&self) -> &Hl1<'data> {
        &self.main
    }

    /// The texture file, when the model keeps its textures in one and it was found.
    #[must_use]
    pub fn texture_file(&self) -> Option<&Hl1<'data>> {
        self.texture_file.as_deref()
    }

    /// The file the textures and skin families are read from: the texture file, or the
    /// model.
    #[must_use]
    pub fn textures(&self) -> &Hl1<'data> {
        self.texture_file.as_deref().unwrap_or(&self.main)
    }

    /// Whether sequence group `g`'s animations are at hand (group 0 always is).
    #[must_use]
    pub fn has_group(&self, g: usize) -> bool {
        self.groups.get(g).copied().flatten().is_some()
    }

    /// The sequence that model frame `frame` is in and the frame within it.
    #[must_use]
    pub fn sequence_frame(&self, frame: usize) -> Option<(usize, u32)> {
        let f = u32::try_from(frame).ok()?;
        let c = self.clips.partition_point(|c| c.first + c.count <= f);
        let clip = self.clips.get(c)?;
        Some((clip.sequence as usize, f - clip.first))
    }

    /// Bone `bone` of sequence `sequence`, blend `blend`, at frame `frame`: each channel its
    /// default value plus the decoded value times its scale (no controller applied), the
    /// motion bone's position components zeroed as the sequence's `motiontype` says, the
    /// angles made a rotation by `AngleQuaternion`. `None` out of range or where the group's
    /// file is missing.
    #[must_use]
    pub fn sequence_pose(
        &self,
        sequence: usize,
        blend: usize,
        frame: u32,
        bone: usize,
    ) -> Option<(Quat, Vec3A)> {
        self.sequence_pose_with(sequence, blend, frame, bone, None)
    }

    /// [`sequence_pose`](Pair::sequence_pose) with the bone controllers set as `controls`
    /// says (`StudioCalcBoneAdj`): each controller's adjustment added to the channel it
    /// drives before the angles become a rotation.
    ///
    /// ```
    /// use skelmap_core::hl1::{Builder, ControllerDef, Controls, raw::STUDIO_ZR};
    /// use skelmap_core::Model;
    /// let mut b = Builder::example();
    /// // Controller 0 turns the arm (bone 1) about Z, from −90° to 90°.
    /// b.controllers.push(ControllerDef {
    ///     bone: 1,
    ///     type_: STUDIO_ZR,
    ///     start: -90.0,
    ///     end: 90.0,
    ///     index: 0,
    /// });
    /// let bytes = b.write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let pair = model.as_hl1().unwrap();
    /// let turned = Controls { values: [30.0, 0.0, 0.0, 0.0, 0.0] };
    /// let (q, _) = pair.sequence_pose_controlled(0, 0, 0, 1, &turned).unwrap();
    /// let (q0, _) = pair.sequence_pose(0, 0, 0, 1).unwrap();
    /// // 30° further about Z than without the controller.
    /// assert!((q0.angle_between(q) - 30f32.to_radians()).abs() < 1e-5);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    #[must_use]
    pub fn sequence_pose_controlled(
        &self,
        sequence: usize,
        blend: usize,
        frame: u32,
        bone: usize,
        controls: &Controls,
    ) -> Option<(Quat, Vec3A)> {
        self.sequence_pose_with(sequence, blend, frame, bone, Some(controls))
    }

    fn sequence_pose_with(
        &self,
        sequence: usize,
        blend: usize,
        frame: u32,
        bone: usize,
        controls: Option<&Controls>,
    ) -> Option<(Quat, Vec3A)> {
        let (data, first) = self.sequence_anims(sequence, blend, frame)?;
        let b = self.main.bones.get(bone)?;
        let zeroed = motion_zeroed(self.main.sequences.get(sequence)?, bone);
        let mut rows = [[[0.0; 16]; 6]];
        let record = first + 12 * bone;
        let [decoded] = bone_channels_into(data, record, b, [frame], zeroed, (&mut rows, 0));
        if controls.is_some() {
            adjust_lane((&mut rows[0], 0), zeroed, self.adjustments(b, controls));
        }
        let [[x, y, z, roll, pitch, yaw]] = rows.map(|rows| rows.map(|row| row[0]));
        decoded.then(|| (angle_quaternion([roll, pitch, yaw]), Vec3A::new(x, y, z)))
    }

    /// Per channel of bone `b`, the adjustment its controller makes under `controls`; none
    /// without controls or where the channel has no controller.
    fn adjustments(&self, b: &raw::Bone, controls: Option<&Controls>) -> [Option<f32>; 6] {
        let Some(controls) = controls else {
            return [None; 6];
        };
        b.bonecontroller.map(|c| {
            let c = self.main.controllers.get(usize::try_from(c.get()).ok()?)?;
            Some(controls.adjustment(c))
        })
    }

    /// The model sampled with its bone controllers set as `controls` says: a [`PoseFrames`]
    /// (and [`Skeleton`]) that [`pose::sample`](crate::pose::sample) and
    /// [`Palette::build`](crate::pose::Palette::build) take in place of the model.
    #[must_use]
    pub fn controlled(&self, controls: Controls) -> Controlled<'_, 'data> {
        Controlled {
            pair: self,
            controls,
        }
    }

    /// The bytes sequence `sequence`'s animations are in and the offset of its blend
    /// `blend`'s first bone record (`mstudioanim_t`, one per bone); `None` out of range or
    /// where the group's file is missing.
    fn sequence_anims(
        &self,
        sequence: usize,
        blend: usize,
        frame: u32,
    ) -> Option<(&'data [u8], usize)> {
        let s = self.main.sequences.get(sequence)?;
        if frame >= s.numframes.get() as u32 || blend >= s.numblends.get() as usize {
            return None;
        }
        let data = self
            .groups
            .get(s.seqgroup.get() as usize)
            .copied()
            .flatten()?;
        Some((
            data,
            s.animindex.get() as usize + 12 * blend * self.main.bones.len(),
        ))
    }

    /// Sequence `sequence`'s channels, resolved on first use; `None` out of range or where
    /// its group's file is missing.
    fn sequence_channels(&self, sequence: usize) -> Option<&SequenceChannels> {
        let all = self.channels.get_or_init(|| {
            (0..self.main.sequences.len())
                .map(|_| OnceLock::new())
                .collect()
        });
        let cell = all.get(sequence)?;
        if let Some(channels) = cell.get() {
            return Some(channels);
        }
        let (data, first) = self.sequence_anims(sequence, 0, 0)?;
        let s = self.main.sequences.get(sequence)?;
        Some(cell.get_or_init(|| {
            SequenceChannels::new(data, first, self.main.bones, |bone| motion_zeroed(s, bone))
        }))
    }

    /// Every bone's pose in sequence `sequence` (blend 0) at each of `frames`, with `controls`
    /// applied where given, written into the matching `out` (one pose per bone): the
    /// sequence's channels resolved on its first use and kept ([`SequenceChannels`]), each
    /// animated channel's runs walked once for all the frames, and sixteen bones' angles made
    /// rotations together, the frames of a chunk of fewer bones (a skeleton of at most eight,
    /// or the last few of a larger one) converted together where they fit in sixteen lanes.
    /// A pose that cannot be decoded (its group's file missing, a frame out of the
    /// sequence, runs that end early) is the identity.
    fn sequence_poses_into<const N: usize>(
        &self,
        sequence: usize,
        frames: [u32; N],
        mut out: [&mut [(Quat, Vec3A)]; N],
        controls: Option<&Controls>,
    ) {
        // The records of every frame start at the same place: only the range check differs.
        let data = self.sequence_anims(sequence, 0, 0).map(|(data, _)| data);
        let count = match (data, self.main.sequences.get(sequence)) {
            (Some(_), Some(s)) => u32::try_from(s.numframes.get()).unwrap_or(0),
            _ => 0,
        };
        let at = Frames {
            data,
            channels: self.sequence_channels(sequence),
            frames,
            decodable: frames.map(|f| f < count),
            sequence,
            controls,
        };
        let last = self.main.bones.len().saturating_sub(1) / 16;
        for chunk in 0..last {
            self.chunk_poses::<N, N>(&at, chunk, &mut out);
        }
        if last == 0 {
            // A skeleton of one chunk: chunk 0 named as such, so that its look-ups fold.
            self.chunk_poses_shared(&at, 0, &mut out);
        } else {
            self.chunk_poses_shared(&at, last, &mut out);
        }
    }

    /// [`chunk_poses`](Pair::chunk_poses) of chunk `chunk`, its frames sharing sets of rows:
    /// as many frames to a set as its bones fit in sixteen lanes, a power of two (a set per
    /// frame for a whole chunk).
    #[inline(always)]
    fn chunk_poses_shared<const N: usize>(
        &self,
        at: &Frames<'_, 'data, N>,
        chunk: usize,
        out: &mut [&mut [(Quat, Vec3A)]; N],
    ) {
        let bones = self.main.bones.len();
        let lanes = bones.saturating_sub(16 * chunk).clamp(1, 16);
        let per = (16 / lanes).min(N).max(1);
        match N >> per.ilog2() {
            1 => self.chunk_poses::<N, 1>(at, chunk, out),
            2 => self.chunk_poses::<N, 2>(at, chunk, out),
            4 => self.chunk_poses::<N, 4>(at, chunk, out),
            8 => self.chunk_poses::<N, 8>(at, chunk, out),
            _ => self.chunk_poses::<N, N>(at, chunk, out),
        }
    }

    /// [`sequence_poses_into`](Pair::sequence_poses_into) for the bones of chunk `chunk`
    /// (sixteen bones from `16 · chunk`), the frames' channels in `R` sets of rows of sixteen
    /// lanes, `N / R` frames to a set: frame `k` in set `k / (N / R)`, from lane
    /// `k % (N / R)` times the chunk's bones. Inlined into its few call sites, where the chunk
    /// is often a constant its look-ups fold with.
    #[inline(always)]
    fn chunk_poses<const N: usize, const R: usize>(
        &self,
        at: &Frames<'_, 'data, N>,
        chunk: usize,
        out: &mut [&mut [(Quat, Vec3A)]; N],
    ) {
        let bones = self.main.bones.get(16 * chunk..).unwrap_or_default();
        let bones = bones.get(..16).unwrap_or(bones);
        let lanes = bones.len();
        // Frame `k`'s set of rows and its first lane.
        let per = N / R;
        let place = |k: usize| (k / per % R, k % per * lanes);
        let mut rows = [[[0.0f32; 16]; 6]; R];
        let mut decoded = [0u16; R];
        if let (Some(data), Some(channels)) = (at.data, at.channels) {
            // Each channel's rest value in every frame's lanes; every bone decoded so far.
            match channels.tiled.as_ref().filter(|_| chunk == 0) {
                Some((rest, present)) => {
                    for (rows, decoded) in rows.iter_mut().zip(&mut decoded) {
                        // Row by row: a copy of the six became a call to `memcpy`.
                        for (to, from) in rows.iter_mut().zip(rest) {
                            *to = *from;
                        }
                        *decoded = *present;
                    }
                }
                None => {
                    let rest = channels.rest.get(chunk).copied().unwrap_or_default();
                    let present = channels.present.get(chunk).copied().unwrap_or(0);
                    for k in 0..N {
                        let (r, first) = place(k);
                        for (row, rest) in rows[r].iter_mut().zip(&rest) {
                            let to = row.iter_mut().skip(first).take(lanes);
                            for (to, from) in to.zip(rest) {
                                *to = *from;
                            }
                        }
                        decoded[r] |= present << first;
                    }
                }
            }
            for (k, decodable) in at.decodable.into_iter().enumerate() {
                let (r, first) = place(k);
                if !decodable {
                    decoded[r] &= !((((1u32 << lanes) - 1) << first) as u16);
                }
            }
            for c in channels.chunk(chunk) {
                let values = channel_values(data, c.at, at.frames);
                let (row, lane) = (usize::from(c.row).min(5), usize::from(c.lane));
                for (k, v) in values.into_iter().enumerate() {
                    let (r, first) = place(k);
                    let lane = (first + lane) % 16;
                    match v {
                        Some(v) => rows[r][row][lane] = c.value + f32::from(v) * c.scale,
                        None => decoded[r] &= !(1 << lane),
                    }
                }
            }
            if at.controls.is_some() {
                let seq = self.main.sequences.get(at.sequence);
                for (i, b) in bones.iter().enumerate() {
                    let zeroed = seq.map_or([false; 3], |s| motion_zeroed(s, 16 * chunk + i));
                    let adjust = self.adjustments(b, at.controls);
                    for k in 0..N {
                        let (r, first) = place(k);
                        adjust_lane((&mut rows[r], first + i), zeroed, adjust);
                    }
                }
            }
        }
        let mut q = [[0.0f32; 16]; 4];
        for (r, (rows, decoded)) in rows.iter().zip(decoded).enumerate() {
            let [x, y, z, angles @ ..] = rows;
            euler::quats_from_zyx(angles, per * lanes, &mut q);
            for k in r * per..(r + 1) * per {
                let first = k % per * lanes;
                let to = out.get_mut(k).and_then(|o| o.get_mut(16 * chunk..));
                for (i, to) in to.unwrap_or_default().iter_mut().take(lanes).enumerate() {
                    let l = (first + i) % 16;
                    *to = if decoded & (1 << l) != 0 {
                        let rotation = Quat::from_xyzw(q[0][l], q[1][l], q[2][l], q[3][l]);
                        (rotation, Vec3A::new(x[l], y[l], z[l]))
                    } else {
                        (Quat::IDENTITY, Vec3A::ZERO)
                    };
                }
            }
        }
    }

    /// [`PoseFrames::frame_poses_into`] with `controls` applied where given.
    fn frame_poses_with(
        &self,
        frame: usize,
        out: &mut Vec<(Quat, Vec3A)>,
        controls: Option<&Controls>,
    ) {
        if let Some((sequence, f)) = self.sequence_frame(frame) {
            let to = self.grow(out, 1);
            self.sequence_poses_into(sequence, [f], [to], controls);
        }
    }

    /// Appends `frames` frames of identity poses to `out` and returns them.
    fn grow<'o>(&self, out: &'o mut Vec<(Quat, Vec3A)>, frames: usize) -> &'o mut [(Quat, Vec3A)] {
        let len = out.len();
        let poses = frames * self.main.bones.len();
        out.resize(len + poses, (Quat::IDENTITY, Vec3A::ZERO));
        out.get_mut(len..).unwrap_or_default()
    }

    /// [`PoseFrames::frame_run_poses_into`] with `controls` applied where given: frames of
    /// one sequence, `K` together.
    fn frame_run_with<const K: usize>(
        &self,
        (sequence, first): (usize, u32),
        out: &mut Vec<(Quat, Vec3A)>,
        controls: Option<&Controls>,
    ) -> usize {
        let bones = self.main.bones.len();
        let mut to = self.grow(out, K).chunks_exact_mut(bones.max(1));
        let to: [_; K] = std::array::from_fn(|_| to.next().unwrap_or_default());
        let frames = std::array::from_fn(|k| first.saturating_add(k as u32));
        self.sequence_poses_into(sequence, frames, to, controls);
        K
    }

    /// [`PoseFrames::frame_run_poses_into`] with `controls` applied where given: as many
    /// frames of `first`'s sequence as fill sixteen lanes, at least two and at most `max`
    /// (rounded down to a power of two).
    fn frame_run_poses_with(
        &self,
        first: usize,
        max: usize,
        out: &mut Vec<(Quat, Vec3A)>,
        controls: Option<&Controls>,
    ) -> usize {
        let Some((sequence, f)) = self.sequence_frame(first) else {
            return 0;
        };
        let left = self.main.sequences.get(sequence).map_or(0, |s| {
            usize::try_from(s.numframes.get()).map_or(0, |n| n.saturating_sub(f as usize))
        });
        let fit = (16 / self.main.bones.len().max(1)).max(2);
        match fit.min(left).min(max) {
            0 => 0,
            1 => self.frame_run_with::<1>((sequence, f), out, controls),
            2 | 3 => self.frame_run_with::<2>((sequence, f), out, controls),
            4..=7 => self.frame_run_with::<4>((sequence, f), out, controls),
            8..=15 => self.frame_run_with::<8>((sequence, f), out, controls),
            _ => self.frame_run_with::<16>((sequence, f), out, controls),
        }
    }

    /// [`PoseFrames::frame_pair_poses_into`] with `controls` applied where given: both frames
    /// decoded together when they are of one sequence.
    fn frame_pair_poses_with(
        &self,
        [a, b]: [usize; 2],
        [out_a, out_b]: [&mut Vec<(Quat, Vec3A)>; 2],
        controls: Option<&Controls>,
    ) {
        match (self.sequence_frame(a), self.sequence_frame(b)) {
            (Some((sa, fa)), Some((sb, fb))) if sa == sb => {
                let (out_a, out_b) = (self.grow(out_a, 1), self.grow(out_b, 1));
                self.sequence_poses_into(sa, [fa, fb], [out_a, out_b], controls);
            }
            _ => {
                self.frame_poses_with(a, out_a, controls);
                self.frame_poses_with(b, out_b, controls);
            }
        }
    }

    fn commands(&self) -> &[Command] {
        self.commands.get_or_init(|| self.main.commands())
    }

    /// Every bone's default pose, relative to its parent: made on first use and kept, since
    /// each is three `sin_cos` and the bind pose is asked for again and again.
    fn bind_local(&self) -> &[(Quat, Vec3A)] {
        self.bind_local.get_or_init(|| {
            (0..self.main.bones.len())
                .map(|i| {
                    self.main
                        .default_pose(i)
                        .unwrap_or((Quat::IDENTITY, Vec3A::ZERO))
                })
                .collect()
        })
    }

    /// Every bone's world transform in the default pose.
    fn bind_world(&self) -> &[Affine3A] {
        self.bind_world.get_or_init(|| {
            let mut out: Vec<Affine3A> = Vec::with_capacity(self.main.bones.len());
            for (b, &(q, t)) in self.main.bones.iter().zip(self.bind_local()) {
                let local = Affine3A::from_rotation_translation(q, t.into());
                let parent = usize::try_from(b.parent.get())
                    .ok()
                    .and_then(|p| out.get(p));
                out.push(parent.map_or(local, |p| *p * local));
            }
            out
        })
    }

    /// Vertex `v` of the model's mesh: its triangle-command record and studio mesh.
    #[must_use]
    pub fn trivert(&self, v: usize) -> Option<(&'data raw::Trivert, usize)> {
        self.main
            .trivert(self.commands(), v)
            .map(|(t, m)| (t, usize::from(m)))
    }

    /// The texture studio mesh `m` draws with (skin family 0).
    #[must_use]
    pub fn mesh_texture(&self, m: usize) -> Option<usize> {
        let skinref = usize::try_from(self.main.meshes.get(m)?.skinref).ok()?;
        self.textures().skin_texture(0, skinref)
    }

    /// Vertex `v`'s texture coordinate: its texels divided by its texture's size (the stored
    /// texels where the texture is missing). Chrome textures' stored coordinates are given
    /// as stored; the engine replaces them each frame from the view.
    #[must_use]
    pub fn texcoord(&self, v: usize) -> Option<[f32; 2]> {
        let (tv, m) = self.trivert(v)?;
        let (s, t) = (f32::from(tv.s.get()), f32::from(tv.t.get()));
        let size = self
            .mesh_texture(m)
            .and_then(|i| self.textures().textures.get(i))
            .map_or((1.0, 1.0), |t| {
                (t.width.get() as f32, t.height.get() as f32)
            });
        Some([s / size.0, t / size.1])
    }

    /// Vertex `v`'s bone and bind-pose position and normal.
    #[must_use]
    pub fn bind_vertex_of(&self, v: usize) -> Option<(u8, Vec3A, Vec3A)> {
        let (tv, m) = self.trivert(v)?;
        let arrays = self.model_arrays(u16::try_from(m).ok()?)?;
        arrays.bind_vertex(tv, self.bind_world())
    }

    /// [`bind_vertex_of`](Pair::bind_vertex_of) for every vertex, in order, as
    /// `f(v, bone, position, normal)`: one walk over the triangle commands, each studio
    /// model's arrays resolved once per studio mesh rather than once per vertex. A vertex whose
    /// records leave the file (impossible once validated) is skipped.
    ///
    /// ```
    /// use skelmap_core::{Model, hl1::Builder};
    /// let bytes = Builder::example().write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let mut bones = Vec::new();
    /// if let Some(pair) = model.as_hl1() {
    ///     pair.for_each_bind_vertex(|_, bone, _, _| bones.push(bone));
    /// }
    /// assert_eq!(bones.len(), 8);
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    pub fn for_each_bind_vertex(&self, mut f: impl FnMut(usize, u8, Vec3A, Vec3A)) {
        self.walk_bind_pose(|v, bone, p, n| {
            f(v, bone, Vec3A::from_array(*p), Vec3A::from_array(*n));
        });
    }

    /// [`Pair::for_each_bind_vertex`] as `f(v, bone, position, normal)`.
    fn walk_bind_pose(&self, mut f: impl FnMut(usize, u8, &[f32; 3], &[f32; 3])) {
        self.walk_commands(|first, records, moved| {
            for (k, r) in records.iter().enumerate() {
                let (vi, ni) = (Moved::vertex(r), Moved::normal(r));
                if let (Some(&bone), Some(p), Some(n)) = (
                    moved.bones.get(vi),
                    moved.vertices.get(vi),
                    moved.normals.get(ni),
                ) {
                    f(first + k, bone, p, n);
                }
            }
        });
    }

    /// Each triangle command as `f(first vertex, records, moved)`: its vertex records (four
    /// 16-bit fields each: vertex index, normal index, s, t), read straight from the bytes,
    /// and its studio model's vertices and normals moved by their bones into the bind pose
    /// ([`Pair::bind_moved`], made on the first walk).
    fn walk_commands(&self, mut f: impl FnMut(usize, &[[u8; 8]], Moved<'_, 'data>)) {
        let data = self.main.data;
        let mut moved_models = self.bind_moved();
        // The studio model being read (its record's offset), with its vertex bones and its
        // moved vertices and normals: the next ones of `bind_moved`, whose models are in this
        // order.
        let mut model: Option<(u32, Moved<'_, 'data>)> = None;
        for (m, info) in self.main.meshes.iter().enumerate() {
            if model.is_none_or(|(at, _)| at != info.model_at) {
                model = None;
                let Some(arrays) = self.model_arrays(m as u16) else {
                    continue;
                };
                let (nv, nn) = (arrays.vertices.len(), arrays.normals.len());
                let Some((vertices, rest)) = moved_models.split_at_checked(nv) else {
                    break;
                };
                let Some((normals, rest)) = rest.split_at_checked(nn) else {
                    break;
                };
                moved_models = rest;
                let moved = Moved {
                    bones: arrays.vertex_bones,
                    vertices,
                    normals,
                };
                model = Some((info.model_at, moved));
            }
            let Some((_, moved)) = model else {
                continue;
            };
            for cmd in self.main.mesh_commands(m, info) {
                let (at, count) = (cmd.at as usize, usize::from(cmd.count));
                let Some(records) = data.get(at..at + 8 * count) else {
                    break;
                };
                f(cmd.first_vertex as usize, records.as_chunks::<8>().0, moved);
            }
        }
    }

    /// Each studio model's vertices, then its normals, moved by their bones into the bind
    /// pose, the models in the order the studio meshes first name them (a model whose arrays
    /// leave the file, impossible once validated, is left out). Made on first use and kept:
    /// the bind pose never changes, and a strip or fan names most model vertices several
    /// times, so [`Pair::walk_commands`] hands them out rather than moving each.
    fn bind_moved(&self) -> &[[f32; 3]] {
        self.bind_moved.get_or_init(|| {
            let world = self.bind_world();
            let mut moved = Vec::new();
            let mut model = None;
            for (m, info) in self.main.meshes.iter().enumerate() {
                if model == Some(info.model_at) {
                    continue;
                }
                // Set before the arrays are read, as the walk does, so that the walk and this
                // agree on which models follow even past one whose arrays fail.
                model = Some(info.model_at);
                if let Some(arrays) = self.model_arrays(m as u16) {
                    arrays.move_into(world, &mut moved);
                }
            }
            moved
        })
    }

    /// The vertex and normal arrays (with their bone bytes) of the studio model studio mesh
    /// `m` belongs to.
    fn model_arrays(&self, m: u16) -> Option<ModelArrays<'data>> {
        let data = self.main.data;
        let info = self.main.meshes.get(usize::from(m))?;
        let model: &[raw::Model] = slice_in(data, u64::from(info.model_at), 1)?;
        let model = model.first()?;
        let array = |count: i32, bones: i32, at: i32| {
            let count = u64::try_from(count).ok()?;
            let bones = data
                .get(usize::try_from(bones).ok()?..)?
                .get(..count as usize)?;
            let values = slice_in::<[F32<LittleEndian>; 3]>(data, u64::try_from(at).ok()?, count)?;
            Some((bones, values))
        };
        let (vertex_bones, vertices) = array(
            model.numverts.get(),
            model.vertinfoindex.get(),
            model.vertindex.get(),
        )?;
        let (normal_bones, normals) = array(
            model.numnorms.get(),
            model.norminfoindex.get(),
            model.normindex.get(),
        )?;
        Some(ModelArrays {
            vertex_bones,
            vertices,
            normal_bones,
            normals,
        })
    }
}

/// One studio model's vertices and normals in the bind pose, and its vertex bones, as
/// [`Pair::walk_commands`] hands them out.
#[derive(Clone, Copy)]
struct Moved<'a, 'data> {
    bones: &'data [u8],
    vertices: &'a [[f32; 3]],
    normals: &'a [[f32; 3]],
}

impl Moved<'_, '_> {
    /// A vertex record's vertex index.
    fn vertex(record: &[u8; 8]) -> usize {
        usize::from(u16::from_le_bytes([record[0], record[1]]))
    }

    /// A vertex record's normal index.
    fn normal(record: &[u8; 8]) -> usize {
        usize::from(u16::from_le_bytes([record[2], record[3]]))
    }
}

/// A studio model's vertices and normals, each in its bone's space, with the bone of each.
struct ModelArrays<'data> {
    vertex_bones: &'data [u8],
    vertices: &'data [[F32<LittleEndian>; 3]],
    normal_bones: &'data [u8],
    normals: &'data [[F32<LittleEndian>; 3]],
}

impl ModelArrays<'_> {
    /// Every vertex moved by its bone's transform in `world`, then every normal by its
    /// normal bone's, appended to `out`; one whose bone is out of range (impossible once
    /// validated) is left at the origin.
    fn move_into(&self, world: &[Affine3A], out: &mut Vec<[f32; 3]>) {
        let start = out.len();
        out.resize(start + self.vertices.len() + self.normals.len(), [0.0; 3]);
        let (vertices, normals) = out[start..].split_at_mut(self.vertices.len());
        // Sixteen at a time where the CPU allows, the rest one at a time.
        let moved = |values, bones, points, out: &mut [[f32; 3]]| {
            let done = crate::skin::move_rigid(values, bones, world, points, out);
            done.min(out.len())
        };
        let done = moved(self.vertices, self.vertex_bones, true, vertices);
        let values = self.vertex_bones.iter().zip(self.vertices).skip(done);
        for (slot, (&bone, value)) in vertices.iter_mut().skip(done).zip(values) {
            if let Some(m) = world.get(usize::from(bone)) {
                *slot = m
                    .transform_point3a(Vec3A::from_array(value.map(|c| c.get())))
                    .to_array();
            }
        }
        let done = moved(self.normals, self.normal_bones, false, normals);
        let values = self.normal_bones.iter().zip(self.normals).skip(done);
        for (slot, (&bone, value)) in normals.iter_mut().skip(done).zip(values) {
            if let Some(m) = world.get(usize::from(bone)) {
                *slot = m
                    .transform_vector3a(Vec3A::from_array(value.map(|c| c.get())))
                    .to_array();
            }
        }
    }

    /// The triangle-command vertex `tv`'s bone and its position and normal moved by their
    /// bones' transforms in `world`; `None` where an index or bone is out of range.
    fn bind_vertex(&self, tv: &raw::Trivert, world: &[Affine3A]) -> Option<(u8, Vec3A, Vec3A)> {
        let (vi, ni) = (tv.vertindex.get() as usize, tv.normindex.get() as usize);
        let bone = *self.vertex_bones.get(vi)?;
        let nbone = *self.normal_bones.get(ni)?;
        let p = Vec3A::from_array(self.vertices.get(vi)?.map(|c| c.get()));
        let n = Vec3A::from_array(self.normals.get(ni)?.map(|c| c.get()));
        let position = world.get(usize::from(bone))?.transform_point3a(p);
        let normal = world.get(usize::from(nbone))?.transform_vector3a(n);
        Some((bone, position, normal))
    }
}

impl<'data> Skeleton<'data> for Pair<'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.main
            .bones
            .iter()
            .map(|b| Bone::new(&b.name, b.parent.get(), 0))
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        let b = self.main.bones.get(index)?;
        Some(Bone::new(&b.name, b.parent.get(), 0))
    }
}

impl<'data> PoseFrames<'data> for Pair<'data> {
    fn num_frames(&self) -> usize {
        self.num_frames
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let (sequence, f) = self.sequence_frame(frame)?;
        self.sequence_pose(sequence, 0, f, bone)
    }

    /// The sequence and its animation records resolved once for every bone.
    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        self.frame_poses_with(frame, out, None);
    }

    /// Both frames decoded together when they are of one sequence: each channel's runs are
    /// walked once for the two.
    fn frame_pair_poses_into(
        &self,
        a: usize,
        b: usize,
        out_a: &mut Vec<(Quat, Vec3A)>,
        out_b: &mut Vec<(Quat, Vec3A)>,
    ) {
        self.frame_pair_poses_with([a, b], [out_a, out_b], None);
    }

    /// Frames of one sequence together: at least two, and as many as fill the sixteen lanes
    /// the angles are converted in.
    fn frame_run_poses_into(
        &self,
        first: usize,
        max: usize,
        out: &mut Vec<(Quat, Vec3A)>,
    ) -> usize {
        self.frame_run_poses_with(first, max, out, None)
    }
}

/// How a Half-Life model's bone controllers are set, as a game sets them (a head turned
/// towards the player, a mouth open while speaking), applied as the renderer applies them
/// (`StudioCalcBoneAdj`, `cl_dll/StudioModelRenderer.cpp`): each controller's value added to
/// the bone channel it drives, before the angles become a rotation.
///
/// The values are in each controller's own units: degrees for one that turns its bone
/// (`STUDIO_XR`, `STUDIO_YR`, `STUDIO_ZR`), model units for one that moves it (`STUDIO_X`,
/// `STUDIO_Y`, `STUDIO_Z`). A value is clamped to the controller's range from `start` to
/// `end`, or, for one of the four that wraps (`STUDIO_RLOOP`), wrapped into
/// `start .. start + 360`: the range the renderer maps the entity's setting bytes onto. The
/// game code's own conversion to those bytes (`SetBoneController`: its rounding, and its sign
/// flip where `end < start`) is the caller's. All zeros, the default, is what games set at
/// spawn; a non-finite value gives a non-finite pose.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Controls {
    /// Per controller `index`: 0–3 the entity's four controllers, 4 the mouth (which the
    /// renderer also uses for any other index).
    pub values: [f32; 5],
}

impl Controls {
    /// What controller `c` adds to its channel: radians for a turn, units for a move, 0 for
    /// a type the renderer does not apply.
    #[must_use]
    pub fn adjustment(&self, c: &raw::BoneController) -> f32 {
        let slot = usize::try_from(c.index.get()).map_or(4, |i| i.min(4));
        let value = self.values[slot];
        let (start, end) = (c.start.get(), c.end.get());
        let kind = c.type_.get() as u32;
        // Only the entity's four controllers wrap; the mouth is always clamped.
        let value = if kind & raw::STUDIO_RLOOP != 0 && slot < 4 {
            start + (value - start).rem_euclid(360.0)
        } else {
            // Validation keeps both ends finite, so the bounds are ordered.
            value.clamp(start.min(end), start.max(end))
        };
        match kind & raw::STUDIO_TYPES {
            raw::STUDIO_XR | raw::STUDIO_YR | raw::STUDIO_ZR => value.to_radians(),
            raw::STUDIO_X | raw::STUDIO_Y | raw::STUDIO_Z => value,
            _ => 0.0,
        }
    }
}

/// A Half-Life model sampled with its bone controllers set ([`Pair::controlled`]): its frames
/// are the model's, each bone's channels adjusted as [`Controls`] says.
///
/// ```
/// use skelmap_core::hl1::{Builder, ControllerDef, Controls, raw::STUDIO_Y};
/// use skelmap_core::Model;
/// use skelmap_core::pose::{Interpolation, LocalPose, sample};
/// let mut b = Builder::example();
/// // The mouth moves the arm (bone 1) along Y, up to 2 units.
/// b.controllers.push(ControllerDef {
///     bone: 1,
///     type_: STUDIO_Y,
///     start: 0.0,
///     end: 2.0,
///     index: 4,
/// });
/// let bytes = b.write()?;
/// let model = Model::from_bytes(&bytes)?;
/// let pair = model.as_hl1().unwrap();
/// let (mut plain, mut open) = (LocalPose::default(), LocalPose::default());
/// sample(pair, 2, 3, 0.5, Interpolation::Nlerp, &mut plain);
/// let mouth = pair.controlled(Controls { values: [0.0, 0.0, 0.0, 0.0, 5.0] });
/// sample(&mouth, 2, 3, 0.5, Interpolation::Nlerp, &mut open);
/// // Clamped to the controller's end: 2 units further along Y.
/// assert_eq!(open.bones[1].1.y, plain.bones[1].1.y + 2.0);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Controlled<'a, 'data> {
    pair: &'a Pair<'data>,
    controls: Controls,
}

impl<'data> Skeleton<'data> for Controlled<'_, 'data> {
    fn skeleton_bones(&self) -> impl ExactSizeIterator<Item = Bone<'data>> + Clone {
        self.pair.skeleton_bones()
    }

    fn bone(&self, index: usize) -> Option<Bone<'data>> {
        Skeleton::bone(self.pair, index)
    }
}

impl<'data> PoseFrames<'data> for Controlled<'_, 'data> {
    fn num_frames(&self) -> usize {
        self.pair.num_frames
    }

    fn bone_pose(&self, frame: usize, bone: usize) -> Option<(Quat, Vec3A)> {
        let (sequence, f) = self.pair.sequence_frame(frame)?;
        self.pair
            .sequence_pose_controlled(sequence, 0, f, bone, &self.controls)
    }

    fn frame_poses_into(&self, frame: usize, out: &mut Vec<(Quat, Vec3A)>) {
        self.pair.frame_poses_with(frame, out, Some(&self.controls));
    }

    fn frame_pair_poses_into(
        &self,
        a: usize,
        b: usize,
        out_a: &mut Vec<(Quat, Vec3A)>,
        out_b: &mut Vec<(Quat, Vec3A)>,
    ) {
        self.pair
            .frame_pair_poses_with([a, b], [out_a, out_b], Some(&self.controls));
    }

    fn frame_run_poses_into(
        &self,
        first: usize,
        max: usize,
        out: &mut Vec<(Quat, Vec3A)>,
    ) -> usize {
        self.pair
            .frame_run_poses_with(first, max, out, Some(&self.controls))
    }
}

/// One mesh of the model each body part shows (a submesh per studio mesh), presented in the
/// default pose; each playable sequence's first blend is a clip.
impl<'data> ModelView<'data> for Pair<'data> {
    type Mesh<'a>
        = &'a Pair<'data>
    where
        Self: 'a;
    type FrameNames<'a>
        = IndexedNames<'a, 'data, Self>
    where
        Self: 'a;
    type BindMesh<'a>
        = &'a Pair<'data>
    where
        Self: 'a;

    fn format(&self) -> Format {
        Format::Hl1
    }

    fn pose_frames(&self) -> Option<&impl PoseFrames<'data>> {
        Some(self)
    }

    fn frame_names(&self) -> Self::FrameNames<'_> {
        IndexedNames::new(self)
    }

    fn clip_origin(&self) -> ClipOrigin {
        ClipOrigin::FrameGroups
    }

    /// The playable sequences, in file order.
    fn built_in_clips(&self) -> Vec<FrameGroup> {
        self.clips
            .iter()
            .filter_map(|c| {
                let s = self.main.sequences.get(c.sequence as usize)?;
                Some(FrameGroup {
                    name: name::lossy(name::trim_nul(&s.label)).into_owned(),
                    first: c.first,
                    count: c.count,
                    fps: s.fps.get(),
                    looped: s.flags.get() as u32 & raw::STUDIO_LOOPING != 0,
                })
            })
            .collect()
    }

    fn bind_pose(&self, out: &mut LocalPose) {
        out.bones.clear();
        out.scales.clear();
        out.bones.extend_from_slice(self.bind_local());
    }

    fn stored_bounds(&self) -> Option<Aabb> {
        Some(Aabb {
            mins: self.main.header.bbmin.map(|v| v.get()),
            maxs: self.main.header.bbmax.map(|v| v.get()),
        })
    }

    fn num_meshes(&self) -> usize {
        usize::from(self.main.num_vertices > 0)
    }

    fn mesh(&self, index: usize) -> Option<&Pair<'data>> {
        (index < self.num_meshes()).then_some(self)
    }

    /// The attachments: each a point in a bone's space.
    fn num_tags(&self) -> usize {
        self.main.attachments.len()
    }

    /// An attachment's name; studiomdl leaves them empty, and those are `attachment`.
    fn tag_name(&self, index: usize) -> Option<&[u8]> {
        let name = name::trim_nul(&self.main.attachments.get(index)?.name);
        Some(if name.is_empty() { b"attachment" } else { name })
    }

    fn tag_bone(&self, index: usize) -> Option<usize> {
        Some(self.main.attachments.get(index)?.bone.get() as usize)
    }

    fn tag_offset(&self, index: usize) -> Affine3A {
        self.main
            .attachments
            .get(index)
            .map_or(Affine3A::IDENTITY, |a| {
                Affine3A::from_translation(a.org.map(|c| c.get()).into())
            })
    }

    fn skins(&self) -> &[Skin<'_>] {
        &self.skins
    }

    fn bind_pose_mesh(&self) -> Option<&Pair<'data>> {
        Some(self)
    }

    fn has_skeleton(&self) -> bool {
        !self.main.bones.is_empty()
    }
}

impl<'a, 'data: 'a> MeshView<'a> for &'a Pair<'data> {
    fn num_vertices(&self) -> usize {
        self.main.num_vertices
    }

    fn num_triangles(&self) -> usize {
        self.main.num_triangles
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        Hl1::triangle_in(self.commands(), i)
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        TexcoordLayout::PerVertex
    }

    fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        self.texcoord(v)
    }

    fn num_groups(&self) -> Option<usize> {
        Some(self.main.meshes.len())
    }

    fn group(&self, i: usize) -> Option<Submesh<'a>> {
        let m = self.main.meshes.get(i)?;
        let texture = self.mesh_texture(i);
        let name = texture
            .and_then(|t| self.textures().textures.get(t))
            .map_or(&b""[..], |t| name::trim_nul(&t.name));
        Some(Submesh::range(
            name,
            texture.filter(|&t| t < self.skins.len()),
            m.first_triangle as usize,
            m.num_triangles as usize,
        ))
    }

    fn for_each_influence(&self, mut f: impl FnMut(usize, u32, f32)) {
        self.for_each_bind_vertex(|v, bone, _, _| f(v, u32::from(bone), 1.0));
    }
}

/// The mesh in the default pose: each vertex moved by its bone's default world transform,
/// each normal by its normal's bone, bound wholly to the vertex's bone.
impl BindPoseMesh for &Pair<'_> {
    fn num_vertices(&self) -> usize {
        self.main.num_vertices
    }

    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        let (bone, position, normal) = self.bind_vertex_of(i)?;
        Some(BindVertex::with_four(
            position,
            normal,
            [Some((u16::from(bone), 1.0)), None, None, None],
        ))
    }

    /// The same values as [`Pair::for_each_bind_vertex`], written out.
    fn copy_bind_pose(&self, positions: &mut [[f32; 3]], normals: &mut [[f32; 3]]) {
        self.walk_commands(|first, records, moved| {
            let outs = positions.get_mut(first..).unwrap_or_default().iter_mut();
            let outs = outs.zip(normals.get_mut(first..).unwrap_or_default());
            for (r, (p, q)) in records.iter().zip(outs) {
                if let Some(v) = moved.vertices.get(Moved::vertex(r)) {
                    *p = *v;
                }
                if let Some(n) = moved.normals.get(Moved::normal(r)) {
                    *q = *n;
                }
            }
        });
    }

    /// Every vertex is bound wholly to its bone: the values of
    /// [`Pair::for_each_bind_vertex`].
    fn for_each_rigid_vertex(&self, mut f: impl FnMut(usize, u16, Vec3A, Vec3A)) -> bool {
        self.walk_bind_pose(|v, bone, p, n| {
            f(
                v,
                u16::from(bone),
                Vec3A::from_array(*p),
                Vec3A::from_array(*n),
            );
        });
        true
    }
}
