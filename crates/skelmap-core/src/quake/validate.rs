//! The validation pass: one sequential walk from the header to the last frame (the rules are
//! listed in the [module docs](super)).
//!
//! Each step of the walk is a [`Check`] method called once from the pass and
//! `#[inline(always)]` into it: compiled apart, the steps make the pass slower (the
//! `open/mdl_quake_*` rows of `benches/open_validate.rs`).

use core::mem::offset_of;

use zerocopy::byteorder::{F32, I32, LittleEndian};

use super::raw::{
    ALIAS_GROUP, ALIAS_SINGLE, ALIAS_SKIN_GROUP, ALIAS_SKIN_SINGLE, ALIAS_VERSION, DaliasFrame,
    DaliasGroup, Dtriangle, MDL2_MAGIC, MdlHeader, Stvert, Trivertx,
};
use super::view::{Frame, Frames, Group, Mdl};
use crate::alias::Skin;
use crate::alias::anorms::{check_normals, normal_scan, scan_passes};
use crate::alias::skin::{SkinLayout, read_skin};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::read::{Reader, Walk};
use crate::rules::{self, record_offset};
use crate::scan::Fields;

type Le = LittleEndian;

/// Byte offset of a header field.
fn at(field: usize) -> u64 {
    field as u64
}

/// Validates `data` under `limits`, recording findings in `diag`, in one walk in file order:
/// the header (its version, scale, counts and skin size), the skins, the texture vertices,
/// the triangles, the frames, any trailing bytes. An `IDPO` file's errors name
/// [`Format::Quake`], an `MDL2`'s [`Format::Mdl`].
impl<'data> Parse<'data> for Mdl<'data> {
    const FORMAT: Format = Format::Quake;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Mdl<'data>> {
        // A prefix of `MDL2` too short to tell is an MDL2 cut short (reported as truncated).
        let mdl2 =
            data.starts_with(MDL2_MAGIC) || (!data.is_empty() && MDL2_MAGIC.starts_with(data));
        let format = if mdl2 { Format::Mdl } else { Format::Quake };
        rules::begin(format, data, limits)?;
        let reader = Reader::new(data, format);
        let header: &MdlHeader = reader.ref_at("header", 0)?;
        let check = Check { format };
        check.version(header)?;
        check.scale(header)?;
        let counts = check.counts(header, limits)?;
        check.skin_size(counts, limits, diag)?;
        let mut walk = reader.walk(size_of::<MdlHeader>() as u64);
        let (skins, skin_groups) = check.skins(&mut walk, counts, limits)?;
        let stverts = check.stverts(&mut walk, counts, diag)?;
        let triangles = check.triangles(&mut walk, counts)?;
        let frames = check.frames(&mut walk, counts, limits)?;
        let end = walk.offset();
        if end < reader.len() {
            let extra = reader.len() - end;
            diag.warn(format, WarningKind::TrailingBytes, "file", end, || {
                format!("{extra} bytes after the last frame")
            });
        }
        Ok(Mdl {
            format,
            header,
            skins,
            skin_groups,
            stverts,
            triangles,
            frames,
            pose_starts: std::sync::OnceLock::new(),
        })
    }
}

/// The counts and skin size a header declares, each not negative.
#[derive(Clone, Copy)]
struct Counts {
    skins: u32,
    width: u32,
    height: u32,
    verts: u32,
    tris: u32,
    frames: u32,
}

/// The scan of a frame vertex's normal index.
const NORMALS: Option<Fields<1>> = normal_scan(
    size_of::<Trivertx>(),
    offset_of!(Trivertx, lightnormalindex),
);

/// `true` if corner `k` of `t` indexes one of `numverts` vertices.
fn ok(t: &Dtriangle, k: usize, numverts: u32) -> bool {
    t.vertindex
        .get(k)
        .and_then(|v| u32::try_from(v.get()).ok())
        .is_some_and(|v| v < numverts)
}

/// GameStudio's skin codes for 16-bit texels (RGB565, ARGB4444), read in an `IDPO` file too.
const GAMESTUDIO_RGB565: i32 = 2;
const GAMESTUDIO_ARGB4444: i32 = 3;

/// The entry of a single skin or frame, member `index`.
fn single<'data>(index: usize) -> Group<'data> {
    Group {
        first: index as u32,
        count: 1,
        intervals: &[],
    }
}

/// The steps of the validation walk, reporting errors under `format`.
#[derive(Clone, Copy)]
struct Check {
    format: Format,
}

impl Check {
    fn invalid(self, what: &'static str, offset: u64, problem: Problem) -> Error {
        Error::Invalid {
            format: self.format,
            what,
            offset,
            problem,
        }
    }

    /// A Quake header's version 6 (MDL2 has no version to check).
    #[inline(always)]
    fn version(self, header: &MdlHeader) -> Result<()> {
        if self.format == Format::Quake && header.version.get() != ALIAS_VERSION {
            return Err(Error::Unsupported {
                format: self.format,
                what: "header.version",
                offset: at(offset_of!(MdlHeader, version)),
                value: header.version.get().into(),
                supported: "Quake MDLs are version 6",
            });
        }
        Ok(())
    }

    /// The header's `scale` and `scale_origin`, every component finite.
    #[inline(always)]
    fn scale(self, header: &MdlHeader) -> Result<()> {
        let floats = header.scale.iter().chain(&header.scale_origin);
        // `scale_origin` follows `scale`: the k-th float's own offset.
        const _: () =
            assert!(offset_of!(MdlHeader, scale_origin) == offset_of!(MdlHeader, scale) + 12);
        for (k, v) in floats.enumerate() {
            if !v.get().is_finite() {
                let what = if k < 3 {
                    "header.scale"
                } else {
                    "header.scale_origin"
                };
                let offset = at(offset_of!(MdlHeader, scale) + 4 * k);
                return Err(self.invalid(what, offset, Problem::NotFinite));
            }
        }
        Ok(())
    }

    /// The header's counts and skin size in field order, each not negative; then the vertex,
    /// triangle and frame counts from 1 to their limits, and the skin count within its own.
    #[inline(always)]
    fn counts(self, header: &MdlHeader, limits: &Limits) -> Result<Counts> {
        let format = self.format;
        let count =
            |v: &I32<Le>, what, field| rules::non_negative(format, what, at(field), v.get());
        let numskins_at = offset_of!(MdlHeader, numskins);
        let numskins = count(&header.numskins, "header.numskins", numskins_at)?;
        let skinwidth_at = offset_of!(MdlHeader, skinwidth);
        let width = count(&header.skinwidth, "header.skinwidth", skinwidth_at)?;
        let skinheight_at = offset_of!(MdlHeader, skinheight);
        let height = count(&header.skinheight, "header.skinheight", skinheight_at)?;
        let numverts_at = offset_of!(MdlHeader, numverts);
        let numverts = count(&header.numverts, "header.numverts", numverts_at)?;
        let numtris_at = offset_of!(MdlHeader, numtris);
        let numtris = count(&header.numtris, "header.numtris", numtris_at)?;
        let numframes_at = offset_of!(MdlHeader, numframes);
        let numframes = count(&header.numframes, "header.numframes", numframes_at)?;
        let counts = [
            (
                "header.numverts",
                numverts_at,
                numverts,
                limits.max_vertices_per_mesh,
            ),
            (
                "header.numtris",
                numtris_at,
                numtris,
                limits.max_triangles_per_mesh,
            ),
            (
                "header.numframes",
                numframes_at,
                numframes,
                limits.max_frames,
            ),
        ];
        for (what, field, value, max) in counts {
            rules::check_count(format, what, at(field), value, max)?;
        }
        self.limit(
            "header.numskins",
            at(numskins_at),
            numskins,
            limits.max_skins,
        )?;
        Ok(Counts {
            skins: numskins,
            width,
            height,
            verts: numverts,
            tris: numtris,
            frames: numframes,
        })
    }

    /// Where there are skins, the header's skin size: each side positive and within
    /// [`Limits::max_skin_dimension`]; a warning where the width is not a multiple of 4.
    #[inline(always)]
    fn skin_size(self, counts: Counts, limits: &Limits, diag: &mut Diagnostics) -> Result<()> {
        let Counts { width, height, .. } = counts;
        if counts.skins == 0 {
            return Ok(());
        }
        let skinwidth_at = offset_of!(MdlHeader, skinwidth);
        // Every skin takes its size from the header, which must then hold one.
        for (what, field, v) in [
            ("header.skinwidth", skinwidth_at, width),
            (
                "header.skinheight",
                offset_of!(MdlHeader, skinheight),
                height,
            ),
        ] {
            if v == 0 {
                let problem = Problem::NotPositive { value: 0.0 };
                return Err(self.invalid(what, at(field), problem));
            }
            self.limit(what, at(field), v, limits.max_skin_dimension)?;
        }
        if width % 4 != 0 {
            diag.warn(
                self.format,
                WarningKind::SpecLimit,
                "header.skinwidth",
                at(skinwidth_at),
                || format!("skin width {width} is not a multiple of 4"),
            );
        }
        Ok(())
    }

    /// The skin records, each entry's group and every image: MDL2's GameStudio records of the
    /// header's size, Quake's single skins and groups, and in an `IDPO` file GameStudio's
    /// 16-bit records too (codes 2 and 3, which Quake does not use: GameStudio's own
    /// `IDPO` files hold them).
    #[inline(always)]
    fn skins<'data>(
        self,
        walk: &mut Walk<'data>,
        counts: Counts,
        limits: &Limits,
    ) -> Result<(Vec<Skin<'data>>, Vec<Group<'data>>)> {
        let Counts {
            skins: numskins,
            width,
            height,
            ..
        } = counts;
        let mut skins = Vec::with_capacity(numskins as usize);
        let mut skin_groups = Vec::with_capacity(numskins as usize);
        for _ in 0..numskins {
            // The record's code, looked at without reading past it.
            let code = { *walk }.next::<I32<Le>>().map(|c| c.get());
            let sixteen_bits = matches!(code, Some(GAMESTUDIO_RGB565 | GAMESTUDIO_ARGB4444));
            let group = if self.format == Format::Mdl || sixteen_bits {
                let layout = SkinLayout::Sized { width, height };
                skins.push(read_skin(walk, layout, self.format, limits)?);
                single(skins.len() - 1)
            } else {
                self.quake_skin(walk, [width, height], limits, &mut skins)?
            };
            skin_groups.push(group);
        }
        Ok((skins, skin_groups))
    }

    /// One texture vertex per vertex; a warning where one lies outside the skin.
    #[inline(always)]
    fn stverts<'data>(
        self,
        walk: &mut Walk<'data>,
        counts: Counts,
        diag: &mut Diagnostics,
    ) -> Result<&'data [Stvert]> {
        let Counts { width, height, .. } = counts;
        let stverts_at = walk.offset();
        let stverts = walk.read_slice::<Stvert>("stverts", counts.verts.into())?;
        // Read as `u32`, a negative coordinate is above any maximum below 2³¹.
        let st_scan = (width < 1 << 31 && height < 1 << 31)
            .then(|| Fields::<4>::new(&[u32::MAX, width, height]))
            .flatten();
        if counts.skins > 0
            && !scan_passes(st_scan.as_ref(), stverts)
            && stverts.iter().any(|st| {
                !(0..=i64::from(width)).contains(&i64::from(st.s.get()))
                    || !(0..=i64::from(height)).contains(&i64::from(st.t.get()))
            })
        {
            diag.warn(
                self.format,
                WarningKind::SpecLimit,
                "stverts",
                stverts_at,
                || "texture vertices outside the skin".into(),
            );
        }
        Ok(stverts)
    }

    /// The triangles, every corner indexing a vertex.
    #[inline(always)]
    fn triangles<'data>(
        self,
        walk: &mut Walk<'data>,
        counts: Counts,
    ) -> Result<&'data [Dtriangle]> {
        let numverts = counts.verts;
        let triangles_at = walk.offset();
        let triangles = walk.read_slice::<Dtriangle>("triangles", counts.tris.into())?;
        // Corners at most `numverts − 1` (read as `u32`, a negative one is above it): scanned
        // where they can be, walked to find the first that is not.
        let corners = numverts
            .checked_sub(1)
            .and_then(|max| Fields::<4>::new(&[u32::MAX, max, max, max]));
        if scan_passes(corners.as_ref(), triangles) {
            return Ok(triangles);
        }
        for (i, t) in triangles.iter().enumerate() {
            if let Some(k) = (0..3).find(|&k| !ok(t, k, numverts)) {
                let offset = record_offset::<Dtriangle>(triangles_at, i)
                    + at(offset_of!(Dtriangle, vertindex) + 4 * k);
                let index = t.vertindex.get(k).map_or(0, |v| v.get());
                let problem = Problem::Index {
                    index: index.into(),
                    len: numverts.into(),
                };
                return Err(self.invalid("triangle.vertindex", offset, problem));
            }
        }
        Ok(triangles)
    }

    /// The frame entries, singles and groups, every pose checked by [`Check::frame`].
    #[inline(always)]
    fn frames<'data>(
        self,
        walk: &mut Walk<'data>,
        counts: Counts,
        limits: &Limits,
    ) -> Result<Frames<'data>> {
        let (numframes, numverts) = (counts.frames, counts.verts);
        let first_entry = *walk;
        // Poses read so far, and whether every entry was a single pose.
        let (mut poses, mut singles) = (0u32, true);
        for _ in 0..numframes {
            let type_at = walk.offset();
            let frame_type = walk.read::<I32<Le>>("frame.type")?.get();
            match frame_type {
                ALIAS_SINGLE => {
                    self.frame(walk, numverts, limits, poses)?;
                    poses = poses.saturating_add(1);
                }
                ALIAS_GROUP => {
                    singles = false;
                    let group_at = walk.offset();
                    let group = walk.read::<DaliasGroup>("frame group")?;
                    let n = self.members(
                        "frame group.numframes",
                        group_at + at(offset_of!(DaliasGroup, numframes)),
                        group.numframes.get(),
                        poses as usize,
                        limits.max_frames,
                    )?;
                    self.intervals(walk, "frame group.intervals", n)?;
                    for _ in 0..n {
                        self.frame(walk, numverts, limits, poses)?;
                        poses = poses.saturating_add(1);
                    }
                }
                value => {
                    return Err(Error::Unsupported {
                        format: self.format,
                        what: "frame.type",
                        offset: type_at,
                        value: value.into(),
                        supported: "frames are type 0 (single) or 1 (group)",
                    });
                }
            }
        }
        Ok(Frames::new(
            first_entry,
            numframes,
            poses,
            numverts,
            singles,
        ))
    }

    /// [`Error::Limit`] for `value` above `max`.
    fn limit(self, what: &'static str, offset: u64, value: u32, max: u32) -> Result<()> {
        if value > max {
            return Err(Error::Limit {
                format: self.format,
                what,
                offset,
                value: value.into(),
                max: max.into(),
            });
        }
        Ok(())
    }

    /// A group's member count at `offset`: at least 1, and with the `so_far` members already
    /// read at most `max` in all.
    fn members(
        self,
        what: &'static str,
        offset: u64,
        value: i32,
        so_far: usize,
        max: u32,
    ) -> Result<u32> {
        let n = rules::non_negative(self.format, what, offset, value)?;
        if n == 0 {
            return Err(self.invalid(what, offset, Problem::Empty));
        }
        let total = (so_far as u64).saturating_add(n.into());
        if total > u64::from(max) {
            return Err(Error::Limit {
                format: self.format,
                what,
                offset,
                value: total,
                max: max.into(),
            });
        }
        Ok(n)
    }

    /// `n` intervals: finite, positive and not decreasing.
    fn intervals<'data>(
        self,
        walk: &mut Walk<'data>,
        what: &'static str,
        n: u32,
    ) -> Result<&'data [F32<Le>]> {
        let first = walk.offset();
        let intervals = walk.read_slice::<F32<Le>>(what, n.into())?;
        let mut previous = 0.0f32;
        for (i, v) in intervals.iter().enumerate() {
            let (value, offset) = (v.get(), record_offset::<F32<Le>>(first, i));
            let problem = if !value.is_finite() {
                Problem::NotFinite
            } else if value <= 0.0 {
                Problem::NotPositive {
                    value: value.into(),
                }
            } else if value < previous {
                Problem::Decreasing {
                    value: value.into(),
                    previous: previous.into(),
                }
            } else {
                previous = value;
                continue;
            };
            return Err(self.invalid(what, offset, problem));
        }
        Ok(intervals)
    }

    /// A Quake skin record (single or group) of `width × height` 8-bit texels, its images
    /// appended to `skins`.
    fn quake_skin<'data>(
        self,
        walk: &mut Walk<'data>,
        [width, height]: [u32; 2],
        limits: &Limits,
        skins: &mut Vec<Skin<'data>>,
    ) -> Result<Group<'data>> {
        let type_at = walk.offset();
        let code = walk.read::<I32<Le>>("skin.type")?.get();
        let texels = u64::from(width) * u64::from(height);
        match code {
            ALIAS_SKIN_SINGLE => {
                let image = walk.read_slice::<u8>("skin.texels", texels)?;
                skins.push(Skin::indexed(code, width, height, image));
                Ok(single(skins.len() - 1))
            }
            ALIAS_SKIN_GROUP => {
                let n_at = walk.offset();
                let n = walk.read::<I32<Le>>("skin group.numskins")?.get();
                let what = "skin group.numskins";
                let n = self.members(what, n_at, n, skins.len(), limits.max_skins)?;
                let intervals = self.intervals(walk, "skin group.intervals", n)?;
                let first = skins.len();
                for _ in 0..n {
                    let image = walk.read_slice::<u8>("skin.texels", texels)?;
                    skins.push(Skin::indexed(code, width, height, image));
                }
                Ok(Group {
                    first: first as u32,
                    count: n,
                    intervals,
                })
            }
            value => Err(Error::Unsupported {
                format: self.format,
                what: "skin.type",
                offset: type_at,
                value: value.into(),
                supported: "Quake skins are type 0 (single) or 1 (group); GameStudio's 2 or 3",
            }),
        }
    }

    /// One pose (header and vertices), after `so_far` others; every normal index below 162.
    fn frame(self, walk: &mut Walk<'_>, numverts: u32, limits: &Limits, so_far: u32) -> Result<()> {
        let header_at = walk.offset();
        self.limit(
            "frames",
            header_at,
            so_far.saturating_add(1),
            limits.max_frames,
        )?;
        let vertices = Frame::read(walk, numverts)?.vertices();
        let vertices_at = header_at + size_of::<DaliasFrame>() as u64;
        let normal_at = offset_of!(Trivertx, lightnormalindex);
        let scan = NORMALS.as_ref();
        check_normals(self.format, vertices, scan, vertices_at, normal_at, |v| {
            v.lightnormalindex
        })
    }
}
