//! Writing MD3 files (fixtures, fuzz seeds and conversions): [`Builder`] lays out what it is given in the
//! order id's tools write (header, frames, tags, surfaces; in each surface its header,
//! shaders, triangles, texture coordinates, vertices), counts and offsets computed, and says
//! where everything went ([`Layout`]) so that a test can break one field. It writes exactly
//! what it is given; the parser judges.

use zerocopy::byteorder::I32;
use zerocopy::{FromZeros, IntoBytes};

use super::raw::{
    MAX_QPATH, MD3_MAGIC, MD3_MAX_FRAMES, MD3_MAX_SURFACES, MD3_MAX_TAGS, MD3_MAX_TRIANGLES,
    MD3_MAX_VERTS, MD3_VERSION, Md3Frame, Md3Header, Md3Shader, Md3St, Md3Surface, Md3Tag,
    Md3Triangle,
};
use glam::Affine3A;

pub use crate::alias::idp3_write::{FrameDef, SurfaceDef, TagDef, encode_normal};
use crate::alias::idp3_write::{
    MAX_COORD, MAX_NAME, MIN_COORD, cut_name, field, floats, frame_def, le_i32, put_frames,
    put_surface_records, put_vertices, quantise, tag_def,
};
use crate::asset::{Asset, FitError, Fitted, FrameKeys, Mesh, Piece, PosedMesh, Skeleton, UpAxis};

/// Builds an MD3.
#[derive(Debug, Clone, PartialEq)]
pub struct Builder {
    /// The model's name, at most 64 bytes.
    pub name: Vec<u8>,
    /// Version (15).
    pub version: i32,
    /// Frames; `num_frames` is their count.
    pub frames: Vec<FrameDef>,
    /// Per frame, its tags (every frame the same number; `num_tags` is frame 0's).
    pub tags: Vec<Vec<TagDef>>,
    /// Surfaces.
    pub surfaces: Vec<SurfaceDef>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            name: b"model".to_vec(),
            version: MD3_VERSION,
            frames: Vec::new(),
            tags: Vec::new(),
            surfaces: Vec::new(),
        }
    }
}

/// Where [`Builder::write_with_layout`] put each structure: file offsets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// The first frame.
    pub frames: u64,
    /// The first tag.
    pub tags: u64,
    /// Each surface's header.
    pub surfaces: Vec<u64>,
    /// The end of the file.
    pub end: u64,
}

impl Builder {
    /// A one-frame model: one surface `triangle` of three vertices at `(0,0,0)`, `(1,0,0)`,
    /// `(0,1,0)` (stored clockwise seen from +Z), normals up, shader `textures/triangle`,
    /// and one tag `tag_weapon` at `(0, 0, 1)`.
    #[must_use]
    pub fn triangle() -> Builder {
        Builder {
            frames: vec![FrameDef {
                name: b"frame0".to_vec(),
                bounds: [[0.0; 3], [1.0, 1.0, 0.0]],
                local_origin: [0.0; 3],
                radius: 1.0,
            }],
            tags: vec![vec![TagDef::at("tag_weapon", [0.0, 0.0, 1.0])]],
            surfaces: vec![SurfaceDef {
                name: b"triangle".to_vec(),
                shaders: vec![b"textures/triangle".to_vec()],
                triangles: vec![[0, 2, 1]],
                st: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
                frames: vec![vec![([0, 0, 0], 0), ([64, 0, 0], 0), ([0, 64, 0], 0)]],
            }],
            ..Builder::default()
        }
    }

    /// The file's bytes.
    #[must_use]
    pub fn write(&self) -> Vec<u8> {
        self.write_with_layout().0
    }

    /// The file's bytes and where each structure went.
    #[must_use]
    pub fn write_with_layout(&self) -> (Vec<u8>, Layout) {
        let mut out = vec![0u8; size_of::<Md3Header>()];
        let mut layout = Layout {
            frames: out.len() as u64,
            ..Layout::default()
        };
        put_frames(&mut out, &self.frames);
        layout.tags = out.len() as u64;
        for tag in self.tags.iter().flatten() {
            let raw = Md3Tag {
                name: field::<MAX_QPATH>(&tag.name),
                origin: floats(tag.origin),
                axis: tag.axis.map(floats),
            };
            out.extend_from_slice(raw.as_bytes());
        }
        let surfaces_at = out.len();
        for s in &self.surfaces {
            layout.surfaces.push(out.len() as u64);
            out.extend_from_slice(&surface(s));
        }
        layout.end = out.len() as u64;
        let header = Md3Header {
            ident: *MD3_MAGIC,
            version: I32::new(self.version),
            name: field(&self.name),
            flags: I32::new(0),
            num_frames: le_i32(self.frames.len()),
            num_tags: le_i32(self.tags.first().map_or(0, Vec::len)),
            num_surfaces: le_i32(self.surfaces.len()),
            num_skins: I32::new(0),
            ofs_frames: le_i32(layout.frames as usize),
            ofs_tags: le_i32(layout.tags as usize),
            ofs_surfaces: le_i32(surfaces_at),
            ofs_end: le_i32(out.len()),
        };
        out[..size_of::<Md3Header>()].copy_from_slice(header.as_bytes());
        (out, layout)
    }
}

/// One surface's bytes: header, shaders, triangles, texture coordinates, vertices.
fn surface(s: &SurfaceDef) -> Vec<u8> {
    let mut body = Vec::new();
    let header_size = size_of::<Md3Surface>();
    let [ofs_shaders, ofs_triangles, ofs_st] =
        put_surface_records(&mut body, header_size, &s.shaders, &s.triangles, &s.st);
    let ofs_xyz = header_size + body.len();
    put_vertices(&mut body, s.frames.iter().flatten());
    let mut header = Md3Surface::new_zeroed();
    header.ident = *MD3_MAGIC;
    header.name = field(&s.name);
    header.num_frames = le_i32(s.frames.len());
    header.num_shaders = le_i32(s.shaders.len());
    header.num_verts = le_i32(s.st.len());
    header.num_triangles = le_i32(s.triangles.len());
    header.ofs_triangles = le_i32(ofs_triangles);
    header.ofs_shaders = le_i32(ofs_shaders);
    header.ofs_st = le_i32(ofs_st);
    header.ofs_xyz_normals = le_i32(ofs_xyz);
    header.ofs_end = le_i32(header_size + body.len());
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(&body);
    out
}

impl Builder {
    /// `asset` as an MD3 (`+Z` up; a `+Y`-up asset is turned), what Quake III and every
    /// engine after it reads:
    ///
    /// - a surface per mesh, named as the mesh, with one shader: the mesh's texture file,
    ///   else its material's name ([`Asset::material_name`]); a mesh past ioquake3's 4096
    ///   vertices or 8192 triangles a surface is split into several (`name`, `name_2`, …),
    ///   vertices shared across a cut copied into each side, since ioquake3 refuses such a
    ///   surface and nothing is lost by drawing it in pieces;
    /// - every frame (each morph target shown, or with `bake`, each skeletal frame skinned),
    ///   its positions rounded to 1/64 unit in 16 bits and its normals to the nearest
    ///   latitude and longitude bytes ([`encode_normal`]); frame names as
    ///   [`Asset::baked`] makes them; each frame's bounds, its centre as the local origin,
    ///   and the radius around it computed from the stored positions;
    /// - tags: the asset's own ([`Asset::tags`], an MD3's, copied bit for bit), then the
    ///   skeleton's attachment points ([`Skeleton::attachment_points`]: flagged joints and
    ///   joints named `tag_…`), each frame's world transform with its axes made orthonormal.
    ///
    /// Names are cut to what their fields hold with a NUL (63 bytes, 15 for frames), with a
    /// note; past ioquake3's 1024 frames, 16 tags or 32 surfaces is a note too (DarkPlaces
    /// and FTE load more).
    ///
    /// ```
    /// use skelmap_core::{Model, md3, model::convert};
    /// // The tube's last joint is an attachment: a tag of the baked model.
    /// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
    /// let asset = convert::asset_of(&Model::from_bytes(&bytes)?)?;
    /// let fitted = md3::Builder::from_asset(&asset, true)?; // without `bake`: refused
    /// assert!(fitted.losses.is_empty());
    /// let bytes = fitted.builder.write();
    /// let md3 = Model::from_bytes(&bytes)?;
    /// assert_eq!((md3.num_frames(), md3.num_tags(), md3.num_bones()), (9, 1, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for skeletal animation without `bake`, a position past the ±512 units
    /// 16 bits of 1/64 reach (MD3 has no scale), more surfaces or frames than skelmap reads
    /// ([`Limits::DEFAULT`](crate::Limits::DEFAULT)), or a file past 2 GiB.
    pub fn from_asset(asset: &Asset, bake: bool) -> Result<Fitted<Builder>, FitError> {
        let Fit {
            frames,
            tags,
            surfaces,
            mut losses,
        } = fit(asset, bake, IOQUAKE3)?;
        check_size(&surfaces, frames.len(), tags.first().map_or(0, Vec::len))?;
        let b = Builder {
            frames,
            tags,
            surfaces,
            ..Builder::default()
        };
        let counts = [
            (b.frames.len(), MD3_MAX_FRAMES, "frames"),
            (b.tags.first().map_or(0, Vec::len), MD3_MAX_TAGS, "tags"),
            (b.surfaces.len(), MD3_MAX_SURFACES, "surfaces"),
        ];
        for (count, max, what) in counts {
            if count > max as usize {
                losses.push(format!(
                    "{count} {what}: past ioquake3's {max} (DarkPlaces and FTE load more)"
                ));
            }
        }
        Ok(Fitted { builder: b, losses })
    }
}

/// The engine MD3 surfaces are split for: ioquake3's 4096 vertices and 8192 triangles.
const IOQUAKE3: Target = Target {
    format: "MD3",
    engine: "ioquake3",
    max_verts: MD3_MAX_VERTS,
    max_tris: MD3_MAX_TRIANGLES,
};

/// Refuses a file whose 32-bit offsets would overflow: past 2 GiB.
fn check_size(surfaces: &[SurfaceDef], frames: usize, tags: usize) -> Result<(), FitError> {
    let frames = frames as u64;
    let mut bytes = size_of::<Md3Header>() as u64
        + frames * size_of::<Md3Frame>() as u64
        + frames * tags as u64 * size_of::<Md3Tag>() as u64;
    for s in surfaces {
        bytes += (size_of::<Md3Surface>() + size_of::<Md3Shader>()) as u64
            + s.triangles.len() as u64 * size_of::<Md3Triangle>() as u64
            + s.st.len() as u64 * (size_of::<Md3St>() as u64 + frames * 8);
    }
    if bytes > i32::MAX as u64 {
        return Err(FitError::new(
            "MD3",
            format!("{bytes} bytes"),
            "its offsets are 32-bit: at most 2 GiB",
            "convert fewer clips with `--clip`, or split the model",
        ));
    }
    Ok(())
}

impl crate::asset::Writer for Builder {
    const FORMAT: crate::format::Format = crate::format::Format::Md3;
    const STORES_IMAGES: bool = false;

    fn write_asset(
        asset: &Asset,
        options: &crate::asset::WriteOptions,
    ) -> Result<crate::asset::Written, crate::asset::WriteError> {
        let Fitted { builder, losses } = Builder::from_asset(asset, options.bake)?;
        Ok(crate::asset::Written::one(Self::FORMAT, builder.write()).with_notes(losses))
    }
}

// Fitting an asset into MD3's records: what the MD3 writer and the MDC writer (which
// compresses the result as ET:Legacy's converter does) share.

/// The format and engine an asset is fitted for ([`fit`]): the format's short name (for
/// errors and notes), the engine whose limits split surfaces, and those limits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    pub format: &'static str,
    pub engine: &'static str,
    pub max_verts: u32,
    pub max_tris: u32,
}

/// An asset fitted into MD3's records ([`fit`]), and what could not be kept.
pub(crate) struct Fit {
    pub frames: Vec<FrameDef>,
    pub tags: Vec<Vec<TagDef>>,
    pub surfaces: Vec<SurfaceDef>,
    pub losses: Vec<String>,
}

/// `asset` (`+Z` up; a `+Y`-up asset is turned) as MD3's records: a surface per mesh
/// (split where `target`'s engine refuses it, vertices shared across a cut copied), every
/// frame's positions at 1/64 unit and normals as latitude and longitude, frame summaries
/// from the stored positions, and tags ([`tags_of`]); names cut to their fields.
///
/// # Errors
///
/// [`FitError`] for skeletal animation without `bake`, a position past the ±512 units 16
/// bits of 1/64 reach, or more surfaces or frames than skelmap reads.
pub(crate) fn fit(asset: &Asset, bake: bool, target: Target) -> Result<Fit, FitError> {
    let format = target.format;
    let asset = asset.with_up(UpAxis::Z);
    asset.refuse_unbaked(format, bake)?;
    let mut losses = Vec::new();
    losses.extend(asset.frame_name_note(crate::asset::MAX_BAKED_NAME, format));
    let frames = asset.baked();
    check_extent(&frames, format)?;
    losses.extend(grid_note(&asset, &frames, format));
    let mut surfaces = Vec::new();
    let mut first = 0usize;
    for (index, mesh) in asset.meshes.iter().enumerate() {
        let name = asset.mesh_name(index);
        let shader = asset.material_name(mesh);
        let shader = cut_name(
            (&shader, asset.code_page),
            MAX_NAME,
            (format, "shader"),
            &mut losses,
        );
        let limits = (target.max_verts as usize, target.max_tris as usize);
        let parts = mesh.named_pieces(
            (&name, asset.code_page),
            limits,
            MAX_NAME,
            (format, target.engine),
            &mut losses,
        );
        for (name_bytes, piece) in &parts {
            surfaces.push(surface_def(
                name_bytes.clone(),
                shader.clone(),
                mesh,
                piece,
                &frames,
                first,
            ));
        }
        first += mesh.positions.len();
    }
    let limits = crate::Limits::DEFAULT;
    if surfaces.len() > limits.max_meshes as usize || frames.len() > limits.max_frames as usize {
        return Err(FitError::new(
            format,
            format!("{} surfaces and {} frames", surfaces.len(), frames.len()),
            format!(
                "skelmap reads at most {} surfaces and {} frames",
                limits.max_meshes, limits.max_frames
            ),
            "merge meshes with `skelmap optimize`, or convert fewer clips with `--clip`",
        ));
    }
    let tags = tags_of(&asset, frames.len(), format, &mut losses);
    let frame_defs = frames
        .iter()
        .enumerate()
        // Names of at most 15 bytes (`Asset::baked`): they fit the 16-byte field with its NUL.
        .map(|(f, (name, _))| frame_def(name.clone(), &surfaces, f))
        .collect();
    Ok(Fit {
        frames: frame_defs,
        tags,
        surfaces,
        losses,
    })
}

/// A note for a model so small that 1/64 unit is a visible part of it: where rounding its
/// `frames` to the grid moves a vertex by more than 1e-3 of the model's size (a model a few
/// units across, as a glTF in metres is; Quake III's player stands 56 units tall). A model
/// already on the grid (an MD3 written again) moves nothing and gets none.
fn grid_note(asset: &Asset, frames: &[(Vec<u8>, PosedMesh)], format: &str) -> Option<String> {
    let (lo, hi) = asset.bounds()?;
    let size = (glam::Vec3::from(hi) - glam::Vec3::from(lo)).length();
    let moved = |p: &[f32; 3]| {
        let p = glam::Vec3::from(*p);
        (p - (p * 64.0).round() / 64.0).length()
    };
    let farthest = (frames.iter())
        .flat_map(|(_, posed)| posed.positions.iter().map(moved))
        .fold(0.0f32, f32::max);
    (size > 0.0 && farthest > 1e-3 * size).then(|| {
        format!(
            "{format} stores positions at 1/64 unit: a vertex moves up to {farthest:.4} \
             units, {:.1e} of this model's size ({size:.4} units); scale the model up to keep \
             its shape (Quake III's player stands 56 units tall)",
            farthest / size
        )
    })
}

/// Refuses a frame with a coordinate that 16 bits of 1/64 unit cannot hold, naming the
/// largest and its frame.
fn check_extent(frames: &[(Vec<u8>, PosedMesh)], format: &'static str) -> Result<(), FitError> {
    let mut worst: Option<(f32, usize, &[u8])> = None;
    for (name, frame) in frames {
        for (k, &c) in frame.positions.iter().flatten().enumerate() {
            let past = !(MIN_COORD..=MAX_COORD).contains(&c) || quantise(c).is_none();
            if past && worst.is_none_or(|(w, _, _)| c.abs().total_cmp(&w.abs()).is_gt()) {
                worst = Some((c, k % 3, name));
            }
        }
    }
    match worst {
        None => Ok(()),
        Some((c, axis, frame)) => Err(FitError::new(
            format,
            format!(
                "a vertex at {c} units on {} (frame '{}')",
                ["X", "Y", "Z"][axis],
                crate::name::lossy(frame)
            ),
            format!(
                "it stores positions in 1/64 unit in 16 bits, {MIN_COORD} to {MAX_COORD} \
                 units, with no scale"
            ),
            "scale the model down or move it to the origin in the source, or convert to MD2 \
             or MDL5, which store a scale",
        )),
    }
}

/// The surface of `piece` of `mesh`, whose vertices start at `first` in each baked frame.
fn surface_def(
    name: Vec<u8>,
    shader: Vec<u8>,
    mesh: &Mesh,
    piece: &Piece,
    frames: &[(Vec<u8>, PosedMesh)],
    first: usize,
) -> SurfaceDef {
    SurfaceDef {
        name,
        shaders: vec![shader],
        // MD3 winds clockwise seen from the front; the asset counter-clockwise.
        triangles: piece
            .triangles
            .iter()
            .map(|t| [t[2] as i32, t[1] as i32, t[0] as i32])
            .collect(),
        st: piece
            .vertices
            .iter()
            .map(|&v| mesh.uv(v as usize))
            .collect(),
        frames: frames
            .iter()
            .map(|(_, f)| {
                piece
                    .vertices
                    .iter()
                    .map(|&v| {
                        let at = first + v as usize;
                        let p = f.positions.get(at).copied().unwrap_or_default();
                        let n = f.normals.get(at).copied().unwrap_or_default();
                        (p.map(|c| quantise(c).unwrap_or(0)), encode_normal(n))
                    })
                    .collect()
            })
            .collect(),
    }
}

/// Every frame's tags: the asset's own, then the skeleton's attachment joints and joints
/// named `tag_…` (see [`fit`]), `frames` of them (one, at the asset's pose,
/// when the asset has no frames).
fn tags_of(
    asset: &Asset,
    frames: usize,
    format: &'static str,
    losses: &mut Vec<String>,
) -> Vec<Vec<TagDef>> {
    let joints = (asset.skeleton.as_ref()).map_or(Vec::new(), Skeleton::attachment_points);
    let mut names: Vec<Vec<u8>> = Vec::new();
    for tag in &asset.tags {
        names.push(cut_name(
            (&tag.name, asset.code_page),
            MAX_NAME,
            (format, "tag"),
            losses,
        ));
    }
    if let Some(s) = &asset.skeleton {
        for &j in &joints {
            names.push(cut_name(
                (&s.joints[j].name, asset.code_page),
                MAX_NAME,
                (format, "tag"),
                losses,
            ));
        }
    }
    if names.is_empty() {
        return Vec::new();
    }
    let mut scaled = false;
    let mut joint_tags = |world: &[Affine3A], out: &mut Vec<TagDef>| {
        for (k, &j) in joints.iter().enumerate() {
            let m = world.get(j).copied().unwrap_or_default();
            let def = tag_def(&names[asset.tags.len() + k], m, true);
            let kept = tag_def(&[], m, false);
            scaled |= def
                .axis
                .iter()
                .flatten()
                .zip(kept.axis.iter().flatten())
                .any(|(a, b)| (a - b).abs() > 1e-4);
            out.push(def);
        }
    };
    let mut out = Vec::with_capacity(frames);
    for f in 0..frames {
        let mut row: Vec<TagDef> = Vec::with_capacity(names.len());
        let key = if asset.num_frames() > 0 {
            asset.frame(f).map(|(_, keys)| keys)
        } else {
            None
        };
        let target = match key {
            Some(FrameKeys::Morph(t)) => Some(t as usize),
            _ => None,
        };
        for (tag, name) in asset.tags.iter().zip(&names) {
            let m = target.map_or(tag.pose, |t| tag.at_target(t));
            row.push(tag_def(name, m, false));
        }
        if let Some(s) = &asset.skeleton {
            let world = match key {
                Some(FrameKeys::Joints(keys)) => s.world(keys),
                _ => s.joints.iter().map(|j| j.world).collect(),
            };
            joint_tags(&world, &mut row);
        }
        out.push(row);
    }
    if scaled {
        losses.push(format!(
            "an attachment joint scales or shears: its tag's axes were made orthonormal, \
                 as {format} tags are"
        ));
    }
    out
}
